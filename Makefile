# The two commands (see README): `make serve` and `make test`.
PYTHON ?= python3.12
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The test suite runs on the production path: PostgreSQL, Redis and a real Celery worker.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/leaderboard
TEST_REDIS_URL ?= redis://127.0.0.1:6379/1
TEST_BROKER_URL ?= redis://127.0.0.1:6379/2

.PHONY: serve test install chromium demo lint mutate

PORT ?= 8000  # make serve PORT=8080 when 8000 is taken

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev,inspect,s3]'
	touch $(STAMP)

install: $(STAMP)

# Debian's Chromium drives the browser tests (Playwright never downloads a browser here).
chromium:
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

demo: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo

serve: demo
	@mkdir -p var; if [ -n "$$REDIS_URL" ]; then \
	  $(VENV)/bin/celery -A config worker --beat --schedule var/celerybeat-schedule --loglevel=WARNING --concurrency=2 & \
	  trap "kill $$!" EXIT; \
	fi; \
	DEBUG=$${DEBUG:-true} $(PY) manage.py runserver 127.0.0.1:$(PORT)

# TEST_RUN_ID (default: this shell's process id) gives the run its own test database, cache keys and Celery
# queue, so two test runs on one machine never wipe each other.
# The services (scripts/test_services.py): DATABASE_URL, REDIS_URL and CELERY_BROKER_URL as set, else the defaults
# above when they answer, else throwaway PostgreSQL and Redis servers of the run's own under var/test-services/
# (installed with apt first when missing), stopped and removed when the run ends, fails or is interrupted.
test: $(STAMP) chromium
	TEST_RUN_ID=$${TEST_RUN_ID:-$$$$} $(PY) scripts/test_services.py --database $(TEST_DATABASE_URL) \
	  --redis $(TEST_REDIS_URL) --broker $(TEST_BROKER_URL) -- $(VENV)/bin/pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Mutation testing (slow: not part of `make test` nor CI; docs/testing.md has the scores). Each target is copied
# to var/mutate/<target>/ with mutation/<target>.cfg as its mutmut setup.cfg; mutmut keeps its results there, so
# a run that is stopped resumes where it was. Then mutation/named.py puts back, one at a time, the mutants a
# review found surviving (some are module constants, which mutmut does not mutate) and checks a test kills each.
# `make mutate MUTATE_TARGETS=voting` runs one target; MUTATE_JOBS is mutmut's number of processes. voting's
# mutant runs each take a slot (mutation/slots.py) with its own test database and cache keys, so runs tested at
# once never disturb each other (a mutant would then die of the other run, not of a test).
MUTATE_TARGETS ?= scoring voting
MUTATE_JOBS ?= 2
mutate: $(STAMP)
	@set -e; for t in $(MUTATE_TARGETS); do \
	  d=var/mutate/$$t; mkdir -p $$d; \
	  rsync -a --delete --exclude /.git --exclude /.venv --exclude /var --exclude /mutants --exclude /staticfiles \
	    --exclude __pycache__ ./ $$d/; \
	  cp mutation/$$t.cfg $$d/setup.cfg; rm -f var/mutate/slots-$$t/*.ready; ln -sfn "$$(cd .. && pwd)/shared" $$d/shared; \
	  jobs=$(MUTATE_JOBS); \
	  (cd $$d && env -u TEST_RUN_ID MUTATE_SLOTS=$$jobs MUTATE_SLOT_DIR=$(abspath var/mutate)/slots-$$t DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} \
	    REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} CELERY_BROKER_URL=$${CELERY_BROKER_URL:-$(TEST_BROKER_URL)} \
	    CACHE_KEY_PREFIX=lb-mutate-$$t $(abspath $(VENV))/bin/mutmut run --max-children $$jobs > ../$$t.log 2>&1 && \
	    $(abspath $(VENV))/bin/mutmut export-cicd-stats > /dev/null) || { echo "mutmut failed: see $$d.log"; exit 1; }; \
	  $(PY) mutation/score.py $$t $$d/mutants/mutmut-cicd-stats.json; \
	done
	env -u TEST_RUN_ID DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(TEST_REDIS_URL)} \
	  CELERY_BROKER_URL=$${CELERY_BROKER_URL:-$(TEST_BROKER_URL)} $(PY) mutation/named.py $(MUTATE_TARGETS)
