"""Browser tests: a real Hibi server on a fresh data dir, driven by headless Chromium."""
import os
import pathlib
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "e2e" / "screenshots"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server():
    binary = os.environ.get("HIBI_BIN") or str(ROOT / ".build" / "debug" / "hibi")
    data = tempfile.mkdtemp(prefix="hibi-e2e-")
    port = free_port()
    env = dict(os.environ, HIBI_DATA_DIR=data, HIBI_PORT=str(port), HIBI_LOG_LEVEL="warning",
               HIBI_RESOURCES_DIR=str(ROOT / "Resources"), HIBI_VENDOR_DIR=str(ROOT / "vendor"))
    log = open(os.path.join(data, "server.log"), "w")
    process = subprocess.Popen([binary, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1)
            break
        except Exception:
            time.sleep(0.2)
    else:
        process.kill()
        raise RuntimeError("Hibi did not start: " + open(os.path.join(data, "server.log")).read())
    yield {"base": base, "data": data, "binary": binary, "env": env, "process": process}
    process.terminate()
    process.wait(timeout=10)


def make_browser(width=1280, height=900, language="en-US", extra_args=(), network_log=False):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                f"--lang={language}", *extra_args):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    # The console is read after each test: a Content-Security-Policy violation fails it.
    # With network_log, every request the page makes is kept (CDP Network events in the performance log).
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", **({"performance": "ALL"} if network_log else {})})
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    driver.implicitly_wait(IMPLICIT_WAIT)
    return driver


IMPLICIT_WAIT = 3


def absent(driver, by, selector):
    """The elements matching now, without the implicit wait: checking that something is NOT on a page
    that has settled otherwise sat out the whole 3 s every time. Call it only after waiting on a condition
    that the page is done (settle, wait_text, a map's data attribute)."""
    driver.implicitly_wait(0)
    try:
        return driver.find_elements(by, selector)
    finally:
        driver.implicitly_wait(IMPLICIT_WAIT)


def csp_violations(driver):
    """Console lines about the Content-Security-Policy: Hibi's pages must run without one."""
    try:
        return [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
    except Exception:  # the browser is gone already
        return []


@pytest.fixture
def browser():
    driver = make_browser()
    yield driver
    violations = csp_violations(driver)
    driver.quit()
    assert not violations, violations


@pytest.fixture
def phone():
    driver = make_browser(width=390, height=844)
    yield driver
    violations = csp_violations(driver)
    driver.quit()
    assert not violations, violations


def shot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
