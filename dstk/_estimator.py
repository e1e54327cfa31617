"""A minimal estimator base compatible with scikit-learn conventions.

scikit-learn is an optional dependency of dstk, so the estimators here do not
inherit from :class:`sklearn.base.BaseEstimator`.  They implement the same
contract (``get_params`` / ``set_params`` from the ``__init__`` signature,
explicit keyword parameters stored unchanged, fitted attributes ending in
``_``) so that :func:`sklearn.base.clone`, grid searches and pipelines work
with them whenever scikit-learn is installed.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from .exceptions import NotFittedError

__all__ = ["BaseEstimator", "check_is_fitted"]


class BaseEstimator:
    """Parameter handling shared by every dstk estimator."""

    @classmethod
    def _get_param_names(cls):
        init = cls.__init__
        if init is object.__init__:
            return []
        signature = inspect.signature(init)
        names = []
        for p in signature.parameters.values():
            if p.name == "self":
                continue
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise RuntimeError(
                    f"{cls.__name__}.__init__ must take explicit keyword parameters, "
                    f"not *args or **kwargs ({p})."
                )
            names.append(p.name)
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Return the estimator's parameters as a dict.

        Parameters
        ----------
        deep : bool, default=True
            Also return the parameters of nested estimators, as
            ``"<name>__<parameter>"``.

        Returns
        -------
        params : dict
        """
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for key, sub in value.get_params(deep=True).items():
                    out[f"{name}__{key}"] = sub
            out[name] = value
        return out

    def set_params(self, **params: Any) -> BaseEstimator:
        """Set parameters (``name=value`` or ``nested__name=value``); returns self."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, object]] = {}
        for key, value in params.items():
            name, delim, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {sorted(self._get_param_names())!r}."
                )
            if delim:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self):
        params = self.get_params(deep=False)
        defaults = {
            p.name: p.default
            for p in inspect.signature(type(self).__init__).parameters.values()
            if p.name != "self"
        }
        shown = []
        for name in sorted(params):
            value = params[name]
            default = defaults.get(name, inspect.Parameter.empty)
            try:
                same = value is default or (type(value) is type(default) and value == default)
            except Exception:  # arrays and other objects without a plain ==
                same = False
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def __sklearn_tags__(self):  # pragma: no cover - only used when sklearn is present
        try:
            from sklearn.utils import ClassifierTags, Tags, TargetTags
        except ImportError:
            return None
        return Tags(
            estimator_type="classifier" if getattr(self, "_estimator_type", None) == "classifier" else None,
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags()
            if getattr(self, "_estimator_type", None) == "classifier"
            else None,
        )


def check_is_fitted(estimator: object, attributes: str | Sequence[str] | None = None) -> None:
    """Raise :class:`~dstk.exceptions.NotFittedError` unless ``estimator`` was fitted.

    Parameters
    ----------
    estimator : object
        The estimator to check.
    attributes : str or sequence of str, optional
        Fitted attributes that must exist.  By default any attribute whose
        name ends with ``_`` (and does not start with ``_``) counts.
    """
    if attributes is None:
        fitted = any(k.endswith("_") and not k.startswith("_") for k in vars(estimator))
    else:
        if isinstance(attributes, str):
            attributes = [attributes]
        fitted = all(hasattr(estimator, a) for a in attributes)
    if not fitted:
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )
