# Two commands from a fresh clone: `make demo` and `make test`. Each creates .venv and installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.proctor-installed

.PHONY: demo test lint typecheck pytest bench install clean vsix npm-test

# The VS Code extension (vscode-client/): npm packages once per lock file, the bundled server once per change
# of the Python sources it copies, the .vsix on every `make vsix`.
CLIENT := vscode-client
NPM_STAMP := $(CLIENT)/node_modules/.proctor-npm-ci
BUNDLE_STAMP := $(CLIENT)/bundled/bundle.json
BUNDLE_SOURCES := $(shell find core lsp_server -name '*.py' -o -name '*.json' -o -name '*.md' -o -name '*.tmpl' 2>/dev/null)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,redis,postgres]'  # the extras: the tests run real servers
	$(BIN)/python -m pip install --quiet --no-deps leeroo-kapso==0.7.10  # reference for the Kapso-compatibility tests
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/proctor demo

# The last line keeps every function in core/ and lsp_server/ readable on one screen: cyclomatic complexity
# at most 15 (C901, the bar is [tool.ruff.lint.mccabe] in pyproject.toml) and at most 50 statements (PLR0915).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/ruff check --select C901,PLR0915 core lsp_server

typecheck: $(STAMP)
	$(BIN)/mypy

# The sandbox tests again with the `unshare` fallback forced (tests/core/run and the campaign attack tests
# are parametrized over both mechanisms already), so a machine without bubblewrap is not the first to see it.
UNSHARE_TESTS := tests/core/test_runner.py tests/core/test_verify_review.py

pytest: $(STAMP)
	$(BIN)/python -m pytest -q
	PROCTOR_SANDBOX_BACKEND=unshare $(BIN)/python -m pytest -q $(UNSHARE_TESTS)

test: lint typecheck pytest npm-test

$(NPM_STAMP): $(CLIENT)/package.json $(CLIENT)/package-lock.json
	cd $(CLIENT) && npm ci --no-audit --no-fund
	touch $(NPM_STAMP)

$(BUNDLE_STAMP): $(STAMP) $(CLIENT)/scripts/bundle_libs.py $(BUNDLE_SOURCES)
	$(BIN)/python $(CLIENT)/scripts/bundle_libs.py

vsix: $(NPM_STAMP) $(BUNDLE_STAMP)
	cd $(CLIENT) && npm run --silent package

npm-test: vsix
	cd $(CLIENT) && npm run --silent typecheck && npm run --silent lint && npm test && npm run test:protocol && npm run test:package

bench: $(STAMP)
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
	rm -rf $(CLIENT)/node_modules $(CLIENT)/out $(CLIENT)/dist $(CLIENT)/bundled/libs $(BUNDLE_STAMP) $(CLIENT)/proctor.vsix
