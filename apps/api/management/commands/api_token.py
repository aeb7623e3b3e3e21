"""manage.py api_token create|list|revoke USERNAME ...: personal API tokens from the shell."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from apps.api.auth import token_create, token_revoke
from apps.api.models import ApiToken


class Command(BaseCommand):
    help = "Create (prints the key once), list or revoke a user's personal API tokens."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="make a token and print its key")
        create.add_argument("username")
        create.add_argument("--name", default="cli", help="what the token is for")
        listing = sub.add_parser("list", help="list a user's tokens (never their keys)")
        listing.add_argument("username")
        revoke = sub.add_parser("revoke", help="revoke one of a user's tokens by id")
        revoke.add_argument("username")
        revoke.add_argument("token_id", type=int)

    def handle(self, *args, action: str, username: str, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}")
        if action == "create":
            token, key = token_create(user=user, name=options["name"][:100])
            self.stdout.write(f"Token {token.pk} ({token.name}) for {username}; the key is shown only now:")
            self.stdout.write(key)
        elif action == "list":
            for t in ApiToken.objects.filter(user=user).order_by("pk"):
                used = t.last_used_at.isoformat(timespec="seconds") if t.last_used_at else "never"
                self.stdout.write(f"{t.pk}\t{t.prefix}…\t{t.name}\tcreated {t.created_at:%Y-%m-%d}\tlast used {used}")
        elif not token_revoke(user=user, token_id=options["token_id"]):
            raise CommandError(f"{username} has no token {options['token_id']}")
        else:
            self.stdout.write(f"revoked token {options['token_id']}")
