"""End-to-end authentication: pyarrow.flight against a flightd given
--tokens and --users, reading only the namespaces each credential grants."""

import hashlib
import os

import pyarrow.flight as fl
import pytest
from _flightd import serve

TOKEN = "e2e-token-0123456789abcdef"
OTHER_TOKEN = "e2e-other-0123456789abcdef"


@pytest.fixture(scope="module")
def location(tmp_path_factory):
    d = tmp_path_factory.mktemp("auth")
    (d / "tokens").write_text(f"# token namespaces\n{TOKEN} samples\n{OTHER_TOKEN} elsewhere\n")
    digest = hashlib.sha256(b"s3cret:with colon").hexdigest()
    (d / "users").write_text(f"alice sha256:{digest} samples\nbob hunter22 elsewhere\n")
    with serve("--tokens", str(d / "tokens"), "--users", str(d / "users")) as addr:
        yield f"grpc://{addr}"


def bearer(token: str) -> fl.FlightCallOptions:
    return fl.FlightCallOptions(headers=[(b"authorization", f"Bearer {token}".encode())])


def rows(client: fl.FlightClient, options: fl.FlightCallOptions) -> int:
    info = client.get_flight_info(fl.FlightDescriptor.for_path("samples", "trips"), options)
    return sum(client.do_get(ep.ticket, options).read_all().num_rows for ep in info.endpoints)


def test_no_credentials_is_unauthenticated(location):
    with fl.connect(location) as c:
        with pytest.raises(fl.FlightUnauthenticatedError):
            list(c.list_flights())
        with pytest.raises(fl.FlightUnauthenticatedError):
            c.get_flight_info(fl.FlightDescriptor.for_path("samples", "trips"))


def test_wrong_token_is_unauthenticated(location):
    with fl.connect(location) as c:
        with pytest.raises(fl.FlightUnauthenticatedError):
            list(c.list_flights(options=bearer("not-a-real-token-at-all")))


def test_token_reads_its_namespace(location):
    with fl.connect(location) as c:
        assert rows(c, bearer(TOKEN)) == 20000
        names = {tuple(p.decode() for p in f.descriptor.path) for f in c.list_flights(options=bearer(TOKEN))}
        assert ("samples", "trips") in names


def test_token_of_another_namespace_is_denied(location):
    with fl.connect(location) as c:
        with pytest.raises(fl.FlightUnauthorizedError, match="samples.trips"):
            c.get_flight_info(fl.FlightDescriptor.for_path("samples", "trips"), bearer(OTHER_TOKEN))
        assert list(c.list_flights(options=bearer(OTHER_TOKEN))) == []


def test_basic_login_returns_a_session_bearer(location):
    with fl.connect(location) as c:
        header = c.authenticate_basic_token("alice", "s3cret:with colon")
        assert header[0] == b"authorization" and header[1].startswith(b"Bearer ")
        options = fl.FlightCallOptions(headers=[header])
        assert rows(c, options) == 20000


def test_tickets_are_checked_against_the_caller(location):
    with fl.connect(location) as c:
        info = c.get_flight_info(fl.FlightDescriptor.for_path("samples", "trips"), bearer(TOKEN))
        ticket = info.endpoints[0].ticket
        with pytest.raises(fl.FlightUnauthenticatedError):
            c.do_get(ticket).read_all()
        with pytest.raises(fl.FlightUnauthorizedError):
            c.do_get(ticket, bearer(OTHER_TOKEN)).read_all()


@pytest.mark.parametrize("user,password", [("alice", "wrong"), ("nobody", "s3cret:with colon")])
def test_bad_login_is_unauthenticated(location, user, password):
    with fl.connect(location) as c:
        with pytest.raises(fl.FlightUnauthenticatedError):
            c.authenticate_basic_token(user, password)


def test_iceflight_client_logs_in(location):
    import iceflight

    with iceflight.connect(location, username="alice", password="s3cret:with colon") as c:
        assert c.read("samples.trips", columns=["id"]).num_rows == 20000
    with iceflight.connect(location, token=TOKEN) as c:
        assert "samples.trips" in c.tables()
    with pytest.raises(fl.FlightUnauthenticatedError):
        iceflight.connect(location, username="alice", password="wrong")
    with pytest.raises(ValueError):
        iceflight.connect(location, token=TOKEN, username="alice")


def test_cli_logs_in(location):
    import subprocess
    import sys

    env = dict(os.environ, ICEFLIGHT_PASSWORD="hunter22")
    out = subprocess.run([sys.executable, "-m", "iceflight", "--server", location, "--user", "bob", "tables"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""  # bob reads only "elsewhere", which has no tables
    env["ICEFLIGHT_PASSWORD"] = "nope"
    out = subprocess.run([sys.executable, "-m", "iceflight", "--server", location, "--user", "bob", "tables"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
