"""A local S3-compatible server for the s3 artifact store's tests: moto's ThreadedMotoServer on 127.0.0.1."""

from __future__ import annotations

import socket
import uuid

import pytest

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def s3_server():
    """(endpoint URL) of a running local S3 server; skipped when moto is not installed."""
    server_mod = pytest.importorskip("moto.server", reason="the S3 tests need moto (requirements-dev.txt)")
    port = _free_port()
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture
def s3_store(s3_server, settings, monkeypatch):
    """The s3 artifact store on a new bucket of the local server; returns the worker's environment for it."""
    import boto3

    for k, v in CREDENTIALS.items():
        monkeypatch.setenv(k, v)
    bucket = f"artifacts-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=s3_server, region_name="us-east-1").create_bucket(Bucket=bucket)
    settings.ARTIFACT_STORE = "s3"
    settings.STORAGES = {
        **settings.STORAGES,
        "artifacts": {
            "BACKEND": "apps.exports.storage.S3ArtifactStorage",
            "OPTIONS": {
                "bucket_name": bucket,
                "endpoint_url": s3_server,
                "region_name": "us-east-1",
                "location": "artifacts",
                "file_overwrite": True,
                "default_acl": None,
                "querystring_auth": True,
                "querystring_expire": 300,
            },
        },
    }
    return {
        **CREDENTIALS,
        "ARTIFACT_STORE": "s3",
        "ARTIFACT_S3_BUCKET": bucket,
        "ARTIFACT_S3_ENDPOINT_URL": s3_server,
        "ARTIFACT_S3_REGION": "us-east-1",
    }
