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

from dstk._lazy import lazy_exports

_LAZY = {
    "MulticlassCalibrator": "dstk.multiclass._calibrator",
    "all_pairs_code": "dstk.multiclass._codes",
    "check_code_matrix": "dstk.multiclass._codes",
    "complete_code": "dstk.multiclass._codes",
    "complete_code_size": "dstk.multiclass._codes",
    "make_code": "dstk.multiclass._codes",
    "one_vs_rest_code": "dstk.multiclass._codes",
    "sparse_code_size": "dstk.multiclass._codes",
    "sparse_code_success_probability": "dstk.multiclass._codes",
    "sparse_column_validity_probability": "dstk.multiclass._codes",
    "sparse_random_code": "dstk.multiclass._codes",
    "CouplingResult": "dstk.multiclass._coupling",
    "couple_probabilities": "dstk.multiclass._coupling",
    "DirichletCalibrator": "dstk.multiclass._dirichlet",
    "combine_task_probabilities": "dstk.multiclass._dirichlet",
    "CodeMatrixClassifier": "dstk.multiclass._tasks",
    "binary_tasks": "dstk.multiclass._tasks",
}

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

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
