"""The GitHub App face of Proctor (SPEC §10): scores every pull request as a check run against its base.

`webhook` verifies and parses deliveries (pure), `web` answers them, `store` holds app state (SQLAlchemy),
`queue` carries job ids (huey), `jobs` runs them through the `handlers` router, `pr_job` is the pull-request
job, `gh` talks to GitHub (PyGithub) behind the `port.GitHubPort` Protocol, `fetch` clones with the token in
memory, `outcome`/`hygiene`/`text` say what the bot posts. `app` wires them; `__main__` is `proctor-app`.
"""
