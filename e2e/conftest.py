"""Browser tests: a real Hibi server on a fresh data dir, driven by headless Chromium."""
import os
import pathlib
import socket
import shutil
import subprocess
import tempfile
import time
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "e2e" / "screenshots"


@pytest.fixture(scope="session")
def clip():
    """90 s of ffmpeg's test pattern in H.264/AAC MP4: long enough for the resume rules (≥ 60 s). Made once
    and kept in .cache (the uploads name the video after the file, so the name stays)."""
    path = ROOT / ".cache" / "e2e-video" / "Garden_walk.mp4"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f"{path.stem}.{os.getpid()}.part.mp4")  # two workers may make it at once
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=90:size=320x240:rate=10",
                        "-f", "lavfi", "-i", "sine=frequency=440:duration=90", "-c:v", "libx264", "-preset", "ultrafast",
                        "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "32k", "-shortest", "-movflags", "+faststart", str(part)],
                       check=True)
        os.replace(part, path)
    return path


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
    # Asked every 50 ms (a start takes 1-2 s; every test waits for one), for up to 30 s.
    deadline, up = time.monotonic() + 30, False
    while not up and time.monotonic() < deadline and process.poll() is None:
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1)
            up = True
        except Exception:
            time.sleep(0.05)
    if not up:
        process.kill()
        raise RuntimeError("Hibi did not start: " + open(os.path.join(data, "server.log")).read())
    STARTED.append(base)
    ALIVE.add(base)
    yield {"base": base, "data": data, "binary": binary, "env": env, "process": process}
    ALIVE.discard(base)
    process.terminate()
    process.wait(timeout=10)
    shutil.rmtree(data, ignore_errors=True)  # each test's server left its data folder behind


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
    # Headless Chromium opens no window narrower than 500 px whatever --window-size says: the "phone" tests ran
    # at 500 px. Set once more after launch, the size holds (phone widths are checked in test_browser_pool).
    driver.set_window_size(width, height)
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


# The origins of this worker's test servers, every one started and those still running: a pooled browser
# forgets what it stored for each server that ran while it was handed out (a later test's server may get
# the same port, so its pages would otherwise find the old one's data). Only those: clearing one origin
# costs Chromium about 30 ms of CPU, so clearing every origin ever seen at every reset cost more than
# the launches the pool saves.
STARTED = []
ALIVE = set()


class BrowserPool:
    """Browsers kept for the whole run of one pytest worker (a launch costs Chromium about 0.7 CPU-seconds),
    one per launch setting in use at a time. A test gets a browser that is alive and looks freshly
    launched: one new tab, no cookies, no cache, nothing stored for the test servers that ran while it
    was last handed out, no granted permission, the window at its launch size. A browser that a test
    broke, or that cannot be reset, is quit, and the next test gets a new one."""

    def __init__(self):
        self.idle = {}

    def acquire(self, width=1280, height=900, language="en-US"):
        key = (width, height, language)
        while self.idle.get(key):
            driver = self.idle[key].pop()
            if alive(driver):
                break
            quit_quietly(driver)
        else:
            driver = make_browser(width=width, height=height, language=language)
            driver.hibi_pool = {"key": key, "size": driver.get_window_size()}
        driver.hibi_pool.update(running=set(ALIVE), since=len(STARTED))
        return driver

    def release(self, driver):
        try:
            reset(driver)
        except Exception:
            quit_quietly(driver)
            return
        self.idle.setdefault(driver.hibi_pool["key"], []).append(driver)

    def close(self):
        for drivers in self.idle.values():
            for driver in drivers:
                quit_quietly(driver)
        self.idle.clear()


def alive(driver):
    try:
        driver.window_handles
        return driver.execute_script("return 1") == 1
    except Exception:
        return False


def quit_quietly(driver):
    try:
        driver.quit()
    except Exception:
        pass


def reset(driver):
    """Back to the state of a fresh launch (see BrowserPool). A new tab drops the old one's history,
    session storage and per-tab overrides (geolocation, network conditions, device metrics)."""
    try:
        driver.switch_to.alert.dismiss()
    except Exception:
        pass
    driver.switch_to.new_window("tab")
    fresh = driver.current_window_handle
    for handle in driver.window_handles:
        if handle != fresh:
            driver.switch_to.window(handle)
            driver.close()
    driver.switch_to.window(fresh)
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    for origin in driver.hibi_pool["running"].union(STARTED[driver.hibi_pool["since"]:]):
        driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
    driver.execute_cdp_cmd("Browser.resetPermissions", {})
    size = driver.hibi_pool["size"]
    if driver.get_window_size() != size:
        driver.set_window_size(size["width"], size["height"])
    driver.implicitly_wait(IMPLICIT_WAIT)
    driver.set_page_load_timeout(300)
    driver.set_script_timeout(30)
    driver.get_log("browser")  # what the reset logged is not the next test's
    assert driver.execute_cdp_cmd("Storage.getCookies", {})["cookies"] == [] and len(driver.window_handles) == 1


@pytest.fixture(scope="session")
def browser_pool():
    pool = BrowserPool()
    yield pool
    pool.close()


@pytest.fixture
def browsers(browser_pool):
    """browsers(width=…, height=…) hands out a pooled browser; each goes back after the test, whose
    Content-Security-Policy violations (on any of them) fail it."""
    given = []

    def get(width=1280, height=900, language="en-US"):
        driver = browser_pool.acquire(width, height, language)
        given.append(driver)
        return driver
    yield get
    violations = []
    for driver in given:
        violations += csp_violations(driver)
        browser_pool.release(driver)
    assert not violations, violations


@pytest.fixture
def browser(browsers):
    return browsers()


@pytest.fixture
def phone(browsers):
    return browsers(width=390, height=844)


def shot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
