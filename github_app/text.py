"""What the bot says, in one place (STYLE §4): check-run titles, the PR comment's frame, command replies."""

from __future__ import annotations

CHECK_NAME = "Proctor"
CAMPAIGN_CHECK_NAME = "Proctor campaign"
COMMENT_MARKER = "<!-- proctor:pr -->"
REPLY_MARKER = "<!-- proctor:reply:{delivery} -->"
COMMANDS = ("run", "accept-evaluator", "campaign", "deliver")
TRUSTED_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})

TITLE_RUNNING = "measuring base and head"
TITLE_SUPERSEDED = "superseded by a newer push ({sha})"
TITLE_FORK_WAITING = "waiting for approval: a maintainer comments /proctor run to run this fork's code"
TITLE_FORK_NEVER = "not run: this repository does not run fork pull requests (github.fork_prs = never)"
TITLE_NOT_MEASURED = "not measured: {reason}"
SUMMARY_NOT_MEASURED = (
    "Proctor could not measure this pull request after several attempts (the reason is in the title). "
    "Comment `/proctor run` to try again."
)
TITLE_BASE_UNUSABLE = "not measured: the base commit cannot be a baseline ({reason})"

SUMMARY_FORK_WAITING = (
    "This pull request comes from a fork. Its code runs only after a repository owner, member or "
    "collaborator comments `/proctor run` on it."
)
SUMMARY_SUPERSEDED = "A newer commit was pushed to this pull request; its check run replaces this one."

HOW_TO_ACCEPT = (
    "If the change to the evaluation suite is intended, a repository owner, member or collaborator comments "
    "`/proctor accept-evaluator`: the pull request's suite becomes a new evaluator version and the check "
    "runs again under it (scores under the old version are then shown as not comparable)."
)

REPLY_NOT_ALLOWED = (
    "Thanks for asking! Proctor commands can only be run by the repository's owners, members and "
    "collaborators, so nothing was run. A maintainer can comment `{command}` for you."
)
REPLY_UNKNOWN = (
    "Proctor does not know `{command}`. Commands: `/proctor run` (re-run the check; also approves a fork's "
    "run), `/proctor campaign [N]` (measure candidates against this pull request's head and deliver the "
    "winner), `/proctor deliver` (deliver the last campaign's winner) and `/proctor accept-evaluator` "
    "(accept this pull request's evaluation suite as a new version)."
)
REPLY_CAMPAIGN_REFUSED = "The campaign did not run: {reason}"
REPLY_NOTHING_TO_DELIVER = (
    "Nothing to deliver: {reason}. Comment `/proctor campaign` to measure candidates against this head."
)

# Buttons under the campaign check run (GitHub: at most 3; label 20, identifier 20, description 40 chars).
ACTION_COMMANDS = {"proctor-run": "run", "proctor-campaign": "campaign", "proctor-deliver": "deliver"}
CAMPAIGN_ACTIONS = (
    {"label": "Re-run", "identifier": "proctor-campaign", "description": "Run this campaign again"},
    {"label": "Deliver", "identifier": "proctor-deliver", "description": "Open the winner as a pull request"},
)
DELIVERY_TITLE = "Proctor: {metric} {score} (+{gain} vs #{number}) from {ref}"
CAMPAIGN_REFUSED_TITLE = "not run: {reason}"
CAMPAIGN_RUNNING_TITLE = "{done} of {total} candidates measured"
REPLY_ACCEPTED = (
    "Accepted this pull request's evaluation suite as evaluator version {version} (`{evaluator_id}`). "
    "The check runs again under it."
)

# What each integrity finding means, for the rejected-candidate report (short verbs for titles).
TITLE_VERBS = {
    "IN001": "changed",
    "IN002": "deleted",
    "IN003": "changed type or is a symlink",
    "IN004": "executable bit changed",
    "IN005": "new source file in the suite",
    "IN006": "stale result.json in the base",
    "IN007": "interpreter hook",
    "IN008": "git-level attack",
    "IN009": "changed during the run",
    "IN010": "protected input changed",
    "IN011": "patches scoring at run time",
}
