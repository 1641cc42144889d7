"""Metric names: the phrases recognised in prose, and the comparison key that makes `ROC AUC`, `roc_auc`
and `test_auc` the same metric."""

from __future__ import annotations

import re

from core.patterns import LazyPattern

_METRIC_ALIASES: dict[str, str] = {
    # canonical keys for names that mean the same measurement (compared after normalisation, see metric_key)
    "auc": "auc",
    "roc auc": "auc",
    "rocauc": "auc",
    "roc": "auc",
    "auroc": "auc",
    "auc roc": "auc",
    "aucroc": "auc",
    "area under the roc curve": "auc",
    "area under roc curve": "auc",
    "area under the curve": "auc",
    "area under curve": "auc",
    "pr auc": "pr_auc",
    "auprc": "pr_auc",
    "auc pr": "pr_auc",
    "aucpr": "pr_auc",
    "prauc": "pr_auc",
    "area under the precision recall curve": "pr_auc",
    "average precision": "average_precision",
    "ap": "average_precision",
    "acc": "accuracy",
    "accuracy": "accuracy",
    "top 1 accuracy": "accuracy",
    "top1 accuracy": "accuracy",
    "balanced accuracy": "balanced_accuracy",
    "f1": "f1",
    "f 1": "f1",
    "f measure": "f1",
    "f1 measure": "f1",
    "f": "f1",
    "macro f1": "macro_f1",
    "f1 macro": "macro_f1",
    "macro averaged f1": "macro_f1",
    "micro f1": "micro_f1",
    "f1 micro": "micro_f1",
    "weighted f1": "weighted_f1",
    "f1 weighted": "weighted_f1",
    "rmse": "rmse",
    "root mean squared error": "rmse",
    "root mean square error": "rmse",
    "mse": "mse",
    "mean squared error": "mse",
    "mae": "mae",
    "mean absolute error": "mae",
    "mape": "mape",
    "mean absolute percentage error": "mape",
    "r2": "r2",
    "r 2": "r2",
    "r squared": "r2",
    "rsquared": "r2",
    "coefficient of determination": "r2",
    "log loss": "log_loss",
    "logloss": "log_loss",
    "logistic loss": "log_loss",
    "cross entropy": "log_loss",
    "crossentropy": "log_loss",
    "binary cross entropy": "log_loss",
    "bce": "log_loss",
    "nll": "log_loss",
    "negative log likelihood": "log_loss",
    "wer": "wer",
    "word error rate": "wer",
    "cer": "cer",
    "character error rate": "cer",
    "mrr": "mrr",
    "mean reciprocal rank": "mrr",
    "em": "exact_match",
    "exact match": "exact_match",
    "mcc": "mcc",
    "matthews correlation": "mcc",
    "matthews correlation coefficient": "mcc",
    "qwk": "qwk",
    "quadratic weighted kappa": "qwk",
    "ppl": "perplexity",
    "perplexity": "perplexity",
    "miou": "miou",
    "mean iou": "miou",
}
# Tokens that name where or how a metric was computed, not which metric it is (`test_auc` is an AUC).
_METRIC_NOISE = frozenset(
    {
        "score",
        "test",
        "val",
        "valid",
        "validation",
        "holdout",
        "heldout",
        "eval",
        "evaluation",
        "the",
        "final",
    }
)

# Metric phrases recognised in prose; longest first so "roc auc" wins over "auc".
_METRIC_PHRASES = sorted(
    [
        r"roc[\s_-]?auc(?:[\s_-]?score)?",
        r"auc[\s_-]?roc",
        r"auroc",
        r"auc",
        r"pr[\s_-]?auc",
        r"auprc",
        r"area under (?:the )?(?:roc |precision[\s-]recall )?curve",
        r"average[\s_-]precision",
        r"mean average precision",
        r"map@\d+",
        r"(?:balanced |top[\s-]?[15] )?accuracy",
        r"(?:macro|micro|weighted)(?:[\s-]averaged)?[\s_-]?f1(?:[\s_-]score)?",
        r"f1[\s_-](?:macro|micro|weighted)",
        r"f1(?:[\s_-]score)?",
        r"f[\s-]?(?:measure|score)",
        r"precision(?:@\d+)?",
        r"recall(?:@\d+)?",
        r"root[\s-]mean[\s-]squared?[\s-]error",
        r"mean (?:squared|absolute|absolute percentage) error",
        r"rmse",
        r"rmsle",
        r"mse",
        r"mae",
        r"s?mape",
        r"r2",
        r"r\^2",
        r"r²",
        r"r[\s-]squared",
        r"coefficient of determination",
        r"log[\s_-]?loss",
        r"(?:binary |categorical )?cross[\s-]?entropy",
        r"negative log[\s-]likelihood",
        r"perplexity",
        r"bleu",
        r"sacrebleu",
        r"rouge(?:[\s_-]?(?:l|1|2|lsum))?",
        r"chrf\+*",
        r"meteor",
        r"exact[\s_-]match",
        r"word error rate",
        r"character error rate",
        r"wer",
        r"cer",
        r"ndcg(?:@\d+)?",
        r"mrr",
        r"mean reciprocal rank",
        r"hit[\s_-]?rate(?:@\d+)?",
        r"hits@\d+",
        r"m?iou",
        r"mean iou",
        r"dice(?:[\s_-]coefficient)?",
        r"pass@\d+",
        r"(?:p\d{2}[\s_-])?latency",
        r"throughput",
        r"run[\s_-]?time",
        r"wall[\s-]clock time",
        r"speed[\s-]?up",
        r"(?:quadratic[\s-]weighted |cohen'?s )?kappa",
        r"qwk",
        r"spearman(?:'s)?(?: correlation| rho)?",
        r"pearson(?:'s)?(?: correlation)?",
        r"matthews correlation(?: coefficient)?",
        r"mcc",
        r"gini",
        r"brier(?:[\s_-]score)?",
        r"ece",
        r"psnr",
        r"ssim",
        r"fid",
        r"win[\s_-]rate",
        r"success[\s_-]rate",
        r"pass[\s_-]rate",
        r"error[\s_-]rate",
        r"(?:mean |total )?reward",
        r"(?:validation |test )?loss",
    ],
    key=len,
    reverse=True,
)
METRIC_WORDS = LazyPattern(r"(?<![\w@/.-])(?:" + "|".join(_METRIC_PHRASES) + r")(?![\w@/])", re.IGNORECASE)


def find_metric_names(text: str) -> list[str]:
    """Metric names mentioned in prose (e.g. a Goal), as written."""
    return [m.group(0) for m in METRIC_WORDS.finditer(text)]


def metric_key(name: str) -> str:
    """A comparison key for a metric name: case, punctuation, aliases and where-it-was-computed words ignored.

    `ROC AUC`, `roc_auc`, `AUROC` and `test_auc` all give `auc`; `F1 score` and `f1` give `f1`; `macro F1` and
    `f1_macro` give `macro_f1`. Names with no known alias compare as their sorted word set.
    """
    lowered = name.strip().lower().replace("²", "2").replace("^2", "2")
    spaced = re.sub(r"[^a-z0-9@]+", " ", lowered).strip()
    if spaced in _METRIC_ALIASES:
        return _METRIC_ALIASES[spaced]
    tokens = [t for t in spaced.split() if t not in _METRIC_NOISE]
    joined = " ".join(tokens)
    if joined in _METRIC_ALIASES:
        return _METRIC_ALIASES[joined]
    if not tokens:
        return spaced.replace(" ", "_")
    return "_".join(sorted(tokens))


def same_metric(a: str, b: str) -> bool:
    return metric_key(a) == metric_key(b)
