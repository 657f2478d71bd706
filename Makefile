# pytest-gpufabric: the two commands of the README, on a machine with Python 3 and make.
#   make demo   run the acceptance suites offline against the bundled demo recording; writes the reports
#   make test   the project's own tests (installs what they need when missing; root for system packages)

SHELL := /bin/sh
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
VENV_STAMP := $(VENV)/.gpufabric-installed
REPORTS := reports

DEMO_RECORDING := recordings/demo
DEMO_CLUSTER := $(DEMO_RECORDING)/site.yaml
DEMO_WORKERS ?= 4
DEMO_HTML := $(REPORTS)/demo.html
DEMO_ALLURE_RESULTS := $(REPORTS)/allure-results
DEMO_ACCEPTANCE := $(REPORTS)/acceptance
ALLURE_REPORT := $(REPORTS)/allure-report

# pytest-xdist for `make test`. Measured on a 2-core machine (whole suite): -n 0 took 64-86 s, -n 2 38-49 s,
# -n 2 --dist loadfile 32-35 s, -n 4 51 s. Much of the suite waits on subprocesses (sshd, Chromium, Java),
# and loadfile keeps each file's session fixtures (lab namespaces, sample reports) on one worker.
TEST_WORKERS ?= 2
TEST_DIST ?= loadfile
PYTEST_ARGS ?=

.PHONY: help demo allure-report test system-deps report-deps clean

help:
	@echo "pytest-gpufabric"
	@echo "  make demo           run the acceptance suites against the demo recording; reports in $(DEMO_ACCEPTANCE)/ and $(DEMO_HTML)"
	@echo "  make allure-report  after make demo: one-file Allure report in $(ALLURE_REPORT) (installs Allure, Java)"
	@echo "  make test           run the project's own tests (installs Chromium, Java, Allure when missing; needs root then)"
	@echo "  make clean          remove reports, the virtual environment and installed report tools"
	@echo "variables: PYTHON=$(PYTHON) TEST_WORKERS=$(TEST_WORKERS) TEST_DIST=$(TEST_DIST) DEMO_WORKERS=$(DEMO_WORKERS) PYTEST_ARGS=..."

# The virtual environment is (re)installed only when pyproject.toml changes.
$(VENV_STAMP): pyproject.toml
	@if ! { [ -x $(VENV)/bin/python ] && $(VENV)/bin/python -m pip --version >/dev/null 2>&1; }; then \
	    if ! $(PYTHON) -c 'import ensurepip, venv' >/dev/null 2>&1; then \
	        if [ "$$(id -u)" -ne 0 ]; then \
	            echo "==> ERROR: $(PYTHON) cannot create virtual environments; as root run: apt-get install python3-venv" >&2; \
	            exit 1; \
	        fi; \
	        echo "==> installing python3-venv (apt-get)"; \
	        DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends python3-venv >/dev/null || exit 1; \
	    fi; \
	    echo "==> creating the virtual environment $(VENV)"; \
	    $(PYTHON) -m venv --clear $(VENV) || exit 1; \
	fi
	@echo "==> installing pytest-gpufabric and its test dependencies into $(VENV)"
	@$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	@$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $@

system-deps:
	@if [ -x tools/install-system-deps.sh ]; then \
	    echo "==> checking system packages for the lab tests"; \
	    tools/install-system-deps.sh; \
	else \
	    echo "==> tools/install-system-deps.sh not present; lab tests check their own prerequisites"; \
	fi

report-deps:
	@echo "==> checking report tools (Chromium, Java, Allure)"
	@tools/install-report-deps.sh

# pytest exit codes: 0 all passed, 1 some failed (the demo cluster has faults on purpose) -> the run
# completed; 2 interrupted, 3 internal error, 4 usage error, 5 no tests collected -> the target fails.
demo: $(VENV_STAMP)
	@echo "==> running the acceptance suites against $(DEMO_RECORDING) (offline replay, $(DEMO_WORKERS) workers)"
	@mkdir -p $(dir $(DEMO_HTML))
	@rm -rf $(DEMO_ACCEPTANCE)
	@status=0; \
	$(VENV)/bin/pytest suites/acceptance --cluster=$(DEMO_CLUSTER) --replay=$(DEMO_RECORDING) \
	    -n $(DEMO_WORKERS) -p no:cacheprovider \
	    --html=$(DEMO_HTML) --self-contained-html --alluredir=$(DEMO_ALLURE_RESULTS) --clean-alluredir \
	    --gpufabric-report=$(DEMO_ACCEPTANCE) $(PYTEST_ARGS) || status=$$?; \
	case $$status in \
	    0|1) echo "==> demo run completed (pytest exit $$status: 1 means it found the demo cluster's faults)"; \
	         if [ ! -s $(DEMO_ACCEPTANCE)/report.html ]; then \
	             echo "==> ERROR: the acceptance report was not written (see the run's output above)" >&2; exit 1; \
	         fi; \
	         echo "==> acceptance report: $(abspath $(DEMO_ACCEPTANCE))/report.html (summary.xlsx, CSV, report.pdf and report-annex.pdf beside it)"; \
	         echo "==> HTML report:    $(abspath $(DEMO_HTML))"; \
	         echo "==> Allure results: $(abspath $(DEMO_ALLURE_RESULTS))"; \
	         exit 0 ;; \
	    *)   echo "==> ERROR: demo run did not complete (pytest exit $$status)" >&2; exit $$status ;; \
	esac

# One self-contained index.html (opens from disk, offline; Allure's analytics switched off).
allure-report: $(VENV_STAMP) report-deps
	@echo "==> building the Allure report from $(DEMO_ALLURE_RESULTS)"
	@$(VENV)/bin/python -c 'import sys; from pytest_gpufabric.reporting.render import generate_allure_report; \
	    print("==> Allure report:", generate_allure_report(sys.argv[1], sys.argv[2], single_file=True) / "index.html")' \
	    $(DEMO_ALLURE_RESULTS) $(ALLURE_REPORT)

test: $(VENV_STAMP) system-deps report-deps
	@echo "==> running the project's tests ($(TEST_WORKERS) workers, --dist $(TEST_DIST))"
	@$(VENV)/bin/pytest tests -n $(TEST_WORKERS) --dist $(TEST_DIST) $(PYTEST_ARGS)

clean:
	@echo "==> removing $(REPORTS)/ $(VENV)/ .tools/"
	@rm -rf $(REPORTS) $(VENV) .tools
