# One image for both processes.
#   web (default):  docker run -p 8000:8000 --env-file prod.env fabricdesign
#   worker:         docker run --env-file prod.env fabricdesign \
#                     celery -A fabricdesign worker --loglevel info --concurrency 2
#   migrations:     docker run --env-file prod.env fabricdesign python manage.py migrate
# Web and worker must share DATABASE_URL and CELERY_BROKER_URL (PostgreSQL and
# Redis/RabbitMQ in production; the SQLite/filesystem defaults only work when
# both run in one container with /data on one volume).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    FABRICDESIGN_VAR_DIR=/data

RUN useradd --create-home --uid 10001 app \
    && mkdir -p /data && chown app:app /data

WORKDIR /app

# Requirements first, so a code change does not reinstall every package.
COPY requirements.txt .
RUN pip install -r requirements.txt

COPY --chown=app:app . .
USER app

# Static files are baked into the image (var/static, served by WhiteNoise).
# Settings refuse to load without a secret key; this one exists only for
# the build step and never reaches a running container.
RUN DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

VOLUME ["/data"]
EXPOSE 8000
# gunicorn.conf.py (read from /app): one gthread worker per CPU, 16 threads each; WEB_CONCURRENCY and
# GUNICORN_THREADS override them. Threads keep pages and /healthz answering while clients download large files
# (README, Production).
CMD ["gunicorn", "fabricdesign.wsgi", "--bind", "0.0.0.0:8000", "--access-logfile", "-"]
