"""The command line on bad input: a clear message and exit status 1, never a crash. A debug build
traps when a command leaves without closing its database, which a mistyped username used to do."""
import os
import subprocess
import tempfile

from conftest import ROOT


def hibi(data, *args, stdin=""):
    binary = os.environ.get("HIBI_BIN") or str(ROOT / ".build" / "debug" / "hibi")
    env = dict(os.environ, HIBI_DATA_DIR=data, HIBI_LOG_LEVEL="warning", HIBI_RESOURCES_DIR=str(ROOT / "Resources"))
    return subprocess.run([binary, *args], env=env, input=stdin, capture_output=True, text=True, timeout=120)


def test_bad_input_at_the_command_line_gets_a_message_and_status_1():
    data = tempfile.mkdtemp(prefix="hibi-cli-")
    bad = hibi(data, "user", "create", "bad name!", "--password-stdin", stdin="a long enough password\n")
    assert bad.returncode == 1, bad.stderr[-2000:]
    assert "Usernames are 3-32 characters" in bad.stderr
    assert "crashed" not in bad.stderr and "Assertion" not in bad.stderr

    made = hibi(data, "user", "create", "aiko", "--password-stdin", stdin="a long enough password\n")
    assert made.returncode == 0, made.stderr[-2000:]
    for args, message in [(("user", "token", "nobody"), "No account named nobody."),
                          (("user", "token", "aiko", "--scopes", "bogus"), 'Unknown token scope "bogus"'),
                          (("user", "reset-password", "nobody", "--generate"), "No account named nobody."),
                          (("user", "disable", "nobody"), "No account named nobody."),
                          (("export", "diary", "--user", "nobody", "-o", os.path.join(data, "d.zip")), "No user named nobody."),
                          (("import", "diary", "--user", "aiko", os.path.join(data, "missing.zip")), "Cannot read"),
                          (("import", "apple-health", "--user", "aiko", "--quiet", os.path.join(data, "missing.zip")), "Cannot read"),
                          (("export", "all", "--user", "nobody", "-o", os.path.join(data, "a.zip")), "No user named nobody."),
                          (("visits", "verify", "nobody"), "No account named nobody."),
                          (("visits", "import-locations", "--user", "aiko", os.path.join(data, "missing.gpx")), "cannot be opened")]:
        answer = hibi(data, *args)
        assert answer.returncode == 1, (args, answer.stderr[-2000:])
        assert message in answer.stderr, (args, answer.stderr[-2000:])
        assert "crashed" not in answer.stderr and "Assertion" not in answer.stderr, args
    assert hibi(data, "migrate").returncode == 0
    listed = hibi(data, "user", "list")
    assert listed.returncode == 0 and listed.stdout.startswith("aiko"), listed
