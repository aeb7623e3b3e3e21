"""The Celery application; start a worker with `celery -A fabricdesign worker -l info`."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fabricdesign.settings")

# Celery's Django fixup makes DjangoTask the base class (it adds
# delay_on_commit), so tasks can be enqueued only once the transaction commits.
app = Celery("fabricdesign")
app.config_from_object("django.conf:settings", namespace="CELERY")

# How our tasks are written, not a deployment choice, so not read from env.
# A task only loads a job row by id and is safe to run twice; so acknowledge
# after it ran (a crashed worker's task is redelivered), take one message at a
# time (a long design computation does not hold others hostage), and keep no
# results (the job row is the record).
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_ignore_result=True,
    broker_connection_retry_on_startup=True,
    # A task that cannot be sent fails its job at once (apps.jobs.services._enqueue), instead of Celery
    # retrying the send while a web request waits.
    task_publish_retry=False,
)


app.autodiscover_tasks()
