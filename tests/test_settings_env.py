"""fabricdesign.env: typed environment readers and DATABASE_URL parsing (no database)."""

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from fabricdesign.env import (
    env_bool,
    env_int,
    env_list,
    env_secret,
    env_str,
    parse_database_url,
)

BASE = Path("/srv/fabricdesign")


@pytest.mark.parametrize("raw", ["true", "TRUE", "1", "yes", "Yes"])
def test_env_bool_accepts_true_spellings(monkeypatch, raw):
    monkeypatch.setenv("FLAG", raw)
    assert env_bool("FLAG", False) is True


@pytest.mark.parametrize("raw", ["false", "False", "0", "no", "NO"])
def test_env_bool_accepts_false_spellings(monkeypatch, raw):
    monkeypatch.setenv("FLAG", raw)
    assert env_bool("FLAG", True) is False


@pytest.mark.parametrize("raw", ["maybe", "on", "off", "y", "2"])
def test_env_bool_rejects_anything_else(monkeypatch, raw):
    monkeypatch.setenv("FLAG", raw)
    with pytest.raises(ImproperlyConfigured, match="FLAG"):
        env_bool("FLAG", False)


def test_env_bool_uses_the_default_when_unset_or_empty(monkeypatch):
    monkeypatch.delenv("FLAG", raising=False)
    assert env_bool("FLAG", True) is True
    monkeypatch.setenv("FLAG", "")
    assert env_bool("FLAG", False) is False


def test_env_int_parses_and_rejects(monkeypatch):
    monkeypatch.setenv("COUNT", " 42 ")
    assert env_int("COUNT", 0) == 42
    monkeypatch.setenv("COUNT", "ten")
    with pytest.raises(ImproperlyConfigured, match="COUNT"):
        env_int("COUNT", 0)


def test_env_list_splits_on_commas_and_drops_blanks(monkeypatch):
    monkeypatch.setenv("HOSTS", " a.example , b.example,, ")
    assert env_list("HOSTS", []) == ["a.example", "b.example"]
    monkeypatch.delenv("HOSTS")
    assert env_list("HOSTS", ["localhost"]) == ["localhost"]


def test_env_str_without_default_is_required(monkeypatch):
    monkeypatch.delenv("NAME_OF_THING", raising=False)
    with pytest.raises(ImproperlyConfigured, match="NAME_OF_THING"):
        env_str("NAME_OF_THING")
    assert env_str("NAME_OF_THING", "fallback") == "fallback"


def test_env_secret_reads_the_variable_or_its_file(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKEN", "from-env")
    assert env_secret("TOKEN") == "from-env"

    secret_file = tmp_path / "token"
    secret_file.write_text("from-file\n")
    monkeypatch.delenv("TOKEN")
    monkeypatch.setenv("TOKEN_FILE", str(secret_file))
    assert env_secret("TOKEN") == "from-file"


def test_env_secret_is_none_when_unset(monkeypatch):
    monkeypatch.delenv("TOKEN", raising=False)
    monkeypatch.delenv("TOKEN_FILE", raising=False)
    assert env_secret("TOKEN") is None


def test_env_secret_refuses_both_sources_and_missing_files(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKEN", "a")
    monkeypatch.setenv("TOKEN_FILE", str(tmp_path / "token"))
    with pytest.raises(ImproperlyConfigured, match="not both"):
        env_secret("TOKEN")

    monkeypatch.delenv("TOKEN")
    with pytest.raises(ImproperlyConfigured, match="cannot be read"):
        env_secret("TOKEN")


def test_database_url_sqlite_relative_path_is_under_base_dir():
    config = parse_database_url("sqlite:///var/db.sqlite3", base_dir=BASE)

    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == "/srv/fabricdesign/var/db.sqlite3"
    assert config["OPTIONS"] == {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }


def test_database_url_sqlite_absolute_path_and_memory():
    assert parse_database_url("sqlite:////tmp/x.db", base_dir=BASE)["NAME"] == "/tmp/x.db"
    assert parse_database_url("sqlite:///:memory:", base_dir=BASE)["NAME"] == ":memory:"
    assert parse_database_url("sqlite://:memory:", base_dir=BASE)["NAME"] == ":memory:"


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_database_url_postgres(scheme):
    config = parse_database_url(
        f"{scheme}://fab:p%40ss%2Fword@db.internal:6543/fabric?sslmode=require",
        base_dir=BASE,
    )

    assert config == {
        "ENGINE": "apps.common.postgresql",
        "NAME": "fabric",
        "USER": "fab",
        "PASSWORD": "p@ss/word",
        "HOST": "db.internal",
        "PORT": "6543",
        "OPTIONS": {"sslmode": "require"},
    }


def test_database_url_postgres_with_defaults():
    config = parse_database_url("postgres://postgres@127.0.0.1/test", base_dir=BASE)

    assert (config["USER"], config["PASSWORD"], config["HOST"], config["PORT"]) == (
        "postgres",
        "",
        "127.0.0.1",
        "",
    )


@pytest.mark.parametrize(
    "url",
    [
        "mysql://root@localhost/db",
        "redis://localhost:6379/0",
        "not a url",
        "postgres://localhost:5432/",
        "postgres://localhost:port/db",
        "sqlite://",
        "sqlite://host/db.sqlite3",
    ],
)
def test_database_url_rejects_what_it_cannot_use(url):
    with pytest.raises(ImproperlyConfigured):
        parse_database_url(url, base_dir=BASE)


def test_counter_thresholds_file_overrides_by_name_and_refuses_a_bad_one(tmp_path):
    from fabricdesign.env import counter_thresholds_file

    assert counter_thresholds_file("") == {}
    good = tmp_path / "t.yaml"
    good.write_text("symbol_errors_per_hour: 10\nflaps_per_hour: 4\n")
    assert counter_thresholds_file(str(good)) == {"symbol_errors_per_hour": 10, "flaps_per_hour": 4}
    for text, message in (
        ("nope: 1\n", "unknown threshold"),
        ("flaps_per_hour: -2\n", "number >= 0"),
        ("- 1\n", "mapping"),
    ):
        good.write_text(text)
        with pytest.raises(ImproperlyConfigured, match=message):
            counter_thresholds_file(str(good))
    with pytest.raises(ImproperlyConfigured, match="COUNTER_THRESHOLDS_FILE"):
        counter_thresholds_file(str(tmp_path / "missing.yaml"))
