"""Statistics: rates over trials, and whether an LLM judge agrees with humans.

Rates over repeated trials (:func:`pass_at_k`, :func:`pass_hat_k`, :func:`wilson_interval`,
:func:`two_proportion_test`); agreement (:func:`percent_agreement`, :func:`cohen_kappa_score` and its
:func:`kappa_interval`, :func:`gwet_ac1_score`, :func:`krippendorff_alpha`), how a judge errs
(:func:`confusion`, :func:`judge_error_rates`), correcting judged rates
(:func:`rogan_gladen`, :func:`ppi_mean_interval`; for a rate :func:`ppi_rate_interval`, kept
in [0, 1], its :class:`BoundedRate` saying when it was clipped), comparing two graders
(:func:`mcnemar_test`, :func:`paired_kappa_differences`), whether a confidence is calibrated
(:func:`calibration_errors`: :func:`expected_calibration_error`, :func:`brier_score` and the
:func:`reliability_curve`, with bootstrap intervals) and planning (:func:`kappa_sample_size`).

Conventions, as in scikit-learn's metrics: options are keyword-only; impossible input (a
negative count, ``c > n``, ``k`` out of range, a confidence outside (0, 1), sequences of
unequal length) raises :class:`StatisticsInputError`, both a ``ValueError`` and a
:class:`~judgekit.errors.JudgekitError` (``CalibrationInputError`` is the same class under
its older name). A value the data cannot define is nan with an
:class:`UndefinedStatisticWarning`; every function that can meet one takes
``replace_undefined_by=`` (scikit-learn's name for it): a number returned in its place with
no warning, ``math.nan`` for a silent nan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgekit._util.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from judgekit.stats._contract import (
        CalibrationInputError,
        StatisticsInputError,
        UndefinedStatisticWarning,
    )
    from judgekit.stats.agreement import (
        cohen_kappa_score,
        confusion,
        gwet_ac1_score,
        kappa_interval,
        kappa_sample_size,
        kappa_standard_error,
        percent_agreement,
    )
    from judgekit.stats.alpha import krippendorff_alpha
    from judgekit.stats.bounded import BoundedRate
    from judgekit.stats.judge_errors import (
        JudgeErrorRates,
        Rate,
        judge_error_rates,
        rogan_gladen,
    )
    from judgekit.stats.mcnemar import mcnemar_test
    from judgekit.stats.multiple import holm_rejections
    from judgekit.stats.paired_kappa import paired_kappa_differences
    from judgekit.stats.ppi import ppi_mean_interval, ppi_rate_interval
    from judgekit.stats.proportions import (
        Z_95,
        TwoProportionTest,
        pass_at_k,
        pass_hat_k,
        two_proportion_test,
        wilson_interval,
    )
    from judgekit.stats.reliability import (
        CalibrationErrors,
        ReliabilityBin,
        brier_score,
        calibration_errors,
        expected_calibration_error,
        reliability_curve,
    )
    from judgekit.stats.scale_errors import likert_errors, per_class_scores

__all__ = [
    "Z_95",
    "BoundedRate",
    "CalibrationErrors",
    "CalibrationInputError",
    "JudgeErrorRates",
    "Rate",
    "ReliabilityBin",
    "StatisticsInputError",
    "TwoProportionTest",
    "UndefinedStatisticWarning",
    "brier_score",
    "calibration_errors",
    "cohen_kappa_score",
    "confusion",
    "expected_calibration_error",
    "gwet_ac1_score",
    "holm_rejections",
    "judge_error_rates",
    "kappa_interval",
    "kappa_sample_size",
    "kappa_standard_error",
    "krippendorff_alpha",
    "likert_errors",
    "mcnemar_test",
    "paired_kappa_differences",
    "pass_at_k",
    "pass_hat_k",
    "per_class_scores",
    "percent_agreement",
    "ppi_mean_interval",
    "ppi_rate_interval",
    "reliability_curve",
    "rogan_gladen",
    "two_proportion_test",
    "wilson_interval",
]


# Loaded on first use: the agreement statistics need numpy, and a command that only needs
# pass@k or Holm (grade, gate) must not pay for it at start-up.
_LAZY = {
    "CalibrationInputError": "judgekit.stats._contract",
    "StatisticsInputError": "judgekit.stats._contract",
    "UndefinedStatisticWarning": "judgekit.stats._contract",
    "cohen_kappa_score": "judgekit.stats.agreement",
    "confusion": "judgekit.stats.agreement",
    "gwet_ac1_score": "judgekit.stats.agreement",
    "kappa_interval": "judgekit.stats.agreement",
    "kappa_sample_size": "judgekit.stats.agreement",
    "kappa_standard_error": "judgekit.stats.agreement",
    "percent_agreement": "judgekit.stats.agreement",
    "krippendorff_alpha": "judgekit.stats.alpha",
    "BoundedRate": "judgekit.stats.bounded",
    "JudgeErrorRates": "judgekit.stats.judge_errors",
    "Rate": "judgekit.stats.judge_errors",
    "judge_error_rates": "judgekit.stats.judge_errors",
    "rogan_gladen": "judgekit.stats.judge_errors",
    "mcnemar_test": "judgekit.stats.mcnemar",
    "holm_rejections": "judgekit.stats.multiple",
    "paired_kappa_differences": "judgekit.stats.paired_kappa",
    "ppi_mean_interval": "judgekit.stats.ppi",
    "ppi_rate_interval": "judgekit.stats.ppi",
    "Z_95": "judgekit.stats.proportions",
    "TwoProportionTest": "judgekit.stats.proportions",
    "pass_at_k": "judgekit.stats.proportions",
    "pass_hat_k": "judgekit.stats.proportions",
    "two_proportion_test": "judgekit.stats.proportions",
    "wilson_interval": "judgekit.stats.proportions",
    "CalibrationErrors": "judgekit.stats.reliability",
    "ReliabilityBin": "judgekit.stats.reliability",
    "brier_score": "judgekit.stats.reliability",
    "calibration_errors": "judgekit.stats.reliability",
    "expected_calibration_error": "judgekit.stats.reliability",
    "reliability_curve": "judgekit.stats.reliability",
    "likert_errors": "judgekit.stats.scale_errors",
    "per_class_scores": "judgekit.stats.scale_errors",
}


__getattr__ = lazy_exports(__name__, _LAZY)
