"""Installable on a phone: manifest, icons, service worker; an offline page when the server is gone; a diary
draft typed offline kept until it can be sent."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import shot
from test_accounts import fill, wait_text
from test_diary import set_up, unlock_with_password


def wait_for_worker(driver):
    WebDriverWait(driver, 20).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))


def test_installable_and_offline_page_when_the_server_stops(server, phone):
    base = server["base"]
    set_up(phone, base)
    phone.get(base + "/")
    WebDriverWait(phone, 20).until(lambda d: d.execute_async_script(
        "const done = arguments[0]; navigator.serviceWorker.ready.then(() => done(true), () => done(false));"))
    phone.refresh()
    wait_for_worker(phone)
    manifest = phone.execute_cdp_cmd("Page.getAppManifest", {})
    assert not manifest.get("errors"), manifest.get("errors")
    assert manifest["url"].endswith("/static/manifest.json")
    errors = phone.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"]
    assert errors == [], errors
    for size in (192, 512):
        assert phone.execute_async_script(
            "const done = arguments[1]; fetch(arguments[0]).then(r => done(r.ok && r.headers.get('content-type')), () => done(false));",
            f"/static/icons/icon-{size}.png") == "image/png"

    server["process"].terminate()
    server["process"].wait(timeout=10)
    phone.get(base + "/health")
    wait_text(phone, "#offline h1", "You are offline")
    assert "サーバー" in phone.find_element(By.ID, "offline").text
    shot(phone, "pwa-01-offline")


def test_a_diary_draft_typed_offline_is_kept_and_sent_when_back_online(server, browser):
    base = server["base"]
    set_up(browser, base)
    unlock_with_password(browser, base)
    browser.get(base + "/diary/new")
    fill(browser, text="Written on the train without signal.")
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions",
                            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    WebDriverWait(browser, 5).until(lambda d: not d.execute_script("return navigator.onLine"))
    browser.find_element(By.CSS_SELECTOR, "#entry-form button[type=submit]").click()
    wait_text(browser, "#draft-status", "kept on this device")
    assert "train" in browser.execute_script("return localStorage.getItem('hibi-diary-draft')")
    shot(browser, "pwa-02-draft-offline")
    browser.execute_cdp_cmd("Network.emulateNetworkConditions",
                            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    WebDriverWait(browser, 15).until(lambda d: "saved=1" in d.current_url)
    assert "Written on the train" in browser.find_element(By.CSS_SELECTOR, ".entry-text").text
    assert browser.execute_script("return localStorage.getItem('hibi-diary-draft')") is None
