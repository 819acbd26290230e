"""Calibration: the statistics that decide whether an LLM judge agrees with humans.

Agreement (:func:`percent_agreement`, :func:`cohen_kappa_score` and its
:func:`kappa_interval`, :func:`gwet_ac1_score`, :func:`krippendorff_alpha`), how a judge errs
(:func:`confusion`, :func:`judge_error_rates`), correcting judged rates
(:func:`rogan_gladen`, :func:`ppi_mean_interval`), comparing two graders
(:func:`mcnemar_test`) and planning (:func:`kappa_sample_size`).

Conventions as in :mod:`judgekit.stats`: options are keyword-only; impossible input raises
:class:`CalibrationInputError` (both a ``ValueError`` and a
:class:`~judgekit.errors.CalibrationError`); an undefined value is nan with an
:class:`~judgekit.stats.UndefinedStatisticWarning`.
"""

from __future__ import annotations

from judgekit.calibration._common import CalibrationInputError
from judgekit.calibration.agreement import (
    cohen_kappa_score,
    confusion,
    gwet_ac1_score,
    kappa_interval,
    kappa_sample_size,
    kappa_standard_error,
    percent_agreement,
)
from judgekit.calibration.alpha import krippendorff_alpha
from judgekit.calibration.judge_errors import (
    JudgeErrorRates,
    Rate,
    judge_error_rates,
    rogan_gladen,
)
from judgekit.calibration.mcnemar import mcnemar_test
from judgekit.calibration.ppi import ppi_mean_interval

__all__ = [
    "CalibrationInputError",
    "JudgeErrorRates",
    "Rate",
    "cohen_kappa_score",
    "confusion",
    "gwet_ac1_score",
    "judge_error_rates",
    "kappa_interval",
    "kappa_sample_size",
    "kappa_standard_error",
    "krippendorff_alpha",
    "mcnemar_test",
    "percent_agreement",
    "ppi_mean_interval",
    "rogan_gladen",
]
