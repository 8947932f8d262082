"""Settings → Import (issue 33, item 3): the page the takeout's README names. A person downloads
everything from one account and a second person imports it from the settings pages: the upload shows
its progress and the report says what was added, in English and in Japanese."""
import os
import tempfile
import urllib.request

from selenium.webdriver.common.by import By

from conftest import shot
from test_accounts import PASSWORD, fill, settle, sign_out, submit, wait_text
from test_visits import add_visit_here, go, set_up


def download(driver, url):
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in driver.get_cookies())
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": cookies})) as response:
        assert response.headers["Content-Type"] == "application/zip"
        return response.read()


def unlock_diary(driver, base):
    go(driver, base + "/diary")
    if "/diary/unlock" in driver.current_url:
        fill(driver, password=PASSWORD)
        submit(driver, "unlock-password")


def test_a_takeout_comes_back_through_settings_import(server, browsers):
    base = server["base"]
    driver = browsers(width=1366, height=768)
    set_up(driver, base)
    add_visit_here(driver, base, "Tokyo Station")
    unlock_diary(driver, base)
    go(driver, base + "/settings")
    wait_text(driver, "#takeout-videos", "No uploaded videos to include.")
    archive = download(driver, base + "/settings/export.zip")
    path = os.path.join(tempfile.mkdtemp(), "hibi-takeout.zip")
    with open(path, "wb") as f:
        f.write(archive)

    # A second person, added by the administrator, imports it.
    go(driver, base + "/admin/users")
    fill(driver, username="ken", password="kens password!")
    submit(driver, "add-user")
    sign_out(driver)
    fill(driver, username="ken", password="kens password!")
    submit(driver, "login-form")
    go(driver, base + "/settings")
    driver.find_element(By.ID, "import-takeout").click()
    if "/diary/unlock" in driver.current_url:
        fill(driver, password="kens password!")
        submit(driver, "unlock-password")
    wait_text(driver, "h1", "Import a takeout")
    driver.find_element(By.ID, "takeout-file").send_keys(path)
    driver.find_element(By.ID, "takeout-import-button").click()
    wait_text(driver, "#takeout-status", "Import finished.", timeout=30)
    wait_text(driver, "#takeout-report", "1 visit added")
    report = driver.find_element(By.ID, "takeout-report").text
    assert "0 diary entries added" in report and "0 health records added" in report, report
    shot(driver, "takeout-import-01-report-laptop")
    go(driver, base + "/visits")
    wait_text(driver, "main", "Tokyo Station")

    # The same file again adds nothing.
    go(driver, base + "/settings/import")
    driver.find_element(By.ID, "takeout-file").send_keys(path)
    driver.find_element(By.ID, "takeout-import-button").click()
    wait_text(driver, "#takeout-status", "Import finished.", timeout=30)
    wait_text(driver, "#takeout-report", "0 visits added")

    # In Japanese on the same page: not a takeout gives a clear error.
    old = driver.find_element(By.TAG_NAME, "html")
    driver.execute_script("const f = document.getElementById('language-select'); f.value = 'ja'; f.form.submit();")
    settle(driver, old)
    wait_text(driver, "h1", "データ書き出しの読み込み")
    bad = os.path.join(tempfile.mkdtemp(), "notes.zip")
    with open(bad, "wb") as f:
        f.write(b"not a zip at all")
    driver.find_element(By.ID, "takeout-file").send_keys(bad)
    driver.find_element(By.ID, "takeout-import-button").click()
    wait_text(driver, "#takeout-status", "読み込めませんでした", timeout=30)
    shot(driver, "takeout-import-02-error-ja")
