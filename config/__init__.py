import os

# One BLAS thread per process: web and worker processes each serve one request or task at a time, and a
# multi-threaded BLAS on a shared machine makes the ratings bootstrap slower and erratic (bench/README.md).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .celery import app as celery_app  # noqa: E402

__all__ = ("celery_app",)
