"""Shares name their recipient by username (DesignShare docstring); existing shares take their user's."""
from django.conf import settings
from django.db import migrations, models


def fill_usernames(apps, schema_editor):
    DesignShare = apps.get_model("designs", "DesignShare")
    for share in DesignShare.objects.select_related("user").iterator():
        DesignShare.objects.filter(pk=share.pk).update(username=share.user.username)


class Migration(migrations.Migration):

    dependencies = [
        ("designs", "0006_revision_repricing"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(model_name="designshare", name="username",
                            field=models.CharField(default="", max_length=150), preserve_default=False),
        migrations.RunPython(fill_usernames, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="designshare", name="user",
            field=models.ForeignKey(blank=True, null=True, on_delete=models.deletion.CASCADE,
                                    related_name="design_shares", to=settings.AUTH_USER_MODEL)),
        migrations.AddConstraint(
            model_name="designshare",
            constraint=models.UniqueConstraint(fields=("design", "username"), name="design_share_username_unique")),
    ]
