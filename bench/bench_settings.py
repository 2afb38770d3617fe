"""Settings for the HTTP benchmarks: the site's own settings (read from the environment as in production),
with a URLconf that adds one trivial view, /_floor/, the framework's floor. Nothing else differs.

    DJANGO_SETTINGS_MODULE=bench.bench_settings .venv/bin/gunicorn config.wsgi ...
"""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.floor_urls"
