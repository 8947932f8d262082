"""The browsers the tests share (conftest.BrowserPool): a test must find nothing another test left behind,
and a browser a test broke must not reach the next test."""
from selenium.webdriver.support.ui import WebDriverWait

STORED = """const done = arguments[0];
navigator.serviceWorker.getRegistrations().then(async (workers) => done({
  local: localStorage.getItem('left'), session: sessionStorage.getItem('left'), cookie: document.cookie,
  workers: workers.length, caches: (await caches.keys()).length,
  notifications: (await navigator.permissions.query({name: 'notifications'})).state,
  history: history.length}));"""


def test_a_pooled_browser_keeps_nothing_of_the_last_test(server, browser_pool):
    base = server["base"]
    driver = browser_pool.acquire()
    launch_size = driver.get_window_size()
    driver.get(base + "/login")
    driver.add_cookie({"name": "left", "value": "1", "path": "/"})
    driver.execute_script("localStorage.setItem('left', '1'); sessionStorage.setItem('left', '1');"
                          "caches.open('left');")
    # The sign-in page registers Hibi's service worker, as every page does.
    WebDriverWait(driver, 20).until(lambda d: d.execute_async_script(
        "const done = arguments[0]; navigator.serviceWorker.getRegistrations().then(r => done(r.length > 0));"))
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": base, "permissions": ["notifications"]})
    # /healthz registers no service worker, so one found there is left from before.
    driver.get(base + "/healthz")
    left = driver.execute_async_script(STORED)
    assert left["local"] == left["session"] == "1" and "left=1" in left["cookie"] and left["workers"] == 1, left
    assert left["notifications"] == "granted" and left["history"] >= 2, left
    driver.switch_to.new_window("window")
    driver.set_window_size(500, 600)
    driver.implicitly_wait(0)
    browser_pool.release(driver)

    again = browser_pool.acquire()
    assert again is driver, "the browser is used again"
    assert len(again.window_handles) == 1 and again.get_window_size() == launch_size
    assert again.timeouts.implicit_wait > 0
    again.get(base + "/healthz")
    assert again.execute_async_script(STORED) == {"local": None, "session": None, "cookie": "", "workers": 0,
                                                  "caches": 0, "notifications": "prompt", "history": 2}
    browser_pool.release(again)


def test_a_browser_that_died_is_replaced(browser_pool):
    driver = browser_pool.acquire()
    driver.quit()  # as a test that broke it, or a crash
    browser_pool.release(driver)
    fresh = browser_pool.acquire()
    assert fresh is not driver and fresh.execute_script("return 1 + 1") == 2
    browser_pool.release(fresh)

    # A browser that dies while it waits in the pool is noticed when it is handed out.
    try:
        fresh.execute_cdp_cmd("Browser.close", {})  # Chromium exits; its chromedriver stays
    except Exception:
        pass
    replaced = browser_pool.acquire()
    assert replaced is not fresh and replaced.execute_script("return 1 + 1") == 2
    browser_pool.release(replaced)


def test_a_phone_is_as_narrow_as_a_phone(server, phone):
    # Launched with --window-size=390,844, headless Chromium was 500 px wide: no "phone" test saw a phone.
    phone.get(server["base"] + "/login")
    assert phone.execute_script("return window.innerWidth") == 390
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 390, "the page scrolls sideways"
