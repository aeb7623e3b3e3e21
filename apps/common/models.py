from django.db import models


class TimeStampedModel(models.Model):
    """Abstract base that records when a row was created and last saved.

    auto_now only runs in save(): a queryset .update() (used for conditional
    state changes) must set updated_at itself.
    """

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True
