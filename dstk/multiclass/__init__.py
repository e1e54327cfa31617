"""Multi-class calibration by reduction to binary tasks (Gebel 2009, Chapter 5).

* Code matrices (:mod:`dstk.multiclass._codes`): :func:`one_vs_rest_code`,
  :func:`all_pairs_code`, :func:`sparse_random_code`, :func:`complete_code`,
  :func:`check_code_matrix` for user-supplied matrices.
* :class:`CodeMatrixClassifier`: trains one binary classifier per task.
* :func:`couple_probabilities`: Hastie-Tibshirani / Zadrozny coupling with a
  per-sample convergence report (:class:`CouplingResult`).
* :class:`DirichletCalibrator`: Gebel's one-step Dirichlet calibration.
* :class:`MulticlassCalibrator`: any binary calibrator (probabilistic or
  evidential) per task, then coupling (``predict_proba``) or evidential
  combination (``predict_mass``).
"""

from ._calibrator import MulticlassCalibrator
from ._codes import (
    all_pairs_code,
    check_code_matrix,
    complete_code,
    complete_code_size,
    make_code,
    one_vs_rest_code,
    sparse_code_size,
    sparse_code_success_probability,
    sparse_column_validity_probability,
    sparse_random_code,
)
from ._coupling import CouplingResult, couple_probabilities
from ._dirichlet import DirichletCalibrator, combine_task_probabilities
from ._tasks import CodeMatrixClassifier, binary_tasks

__all__ = [
    "CodeMatrixClassifier",
    "CouplingResult",
    "DirichletCalibrator",
    "MulticlassCalibrator",
    "all_pairs_code",
    "binary_tasks",
    "check_code_matrix",
    "combine_task_probabilities",
    "complete_code",
    "complete_code_size",
    "couple_probabilities",
    "make_code",
    "one_vs_rest_code",
    "sparse_code_size",
    "sparse_code_success_probability",
    "sparse_column_validity_probability",
    "sparse_random_code",
]
