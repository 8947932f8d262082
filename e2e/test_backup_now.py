"""Back up now on /admin/backups (issue 33, item 3), on a phone: the button starts a backup, the page
shows its progress and then the verified archive in the list; the admin menu leads back to Users and
the page shows no literal backticks, and nothing sticks out sideways."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import shot
from test_accounts import submit, wait_text
from test_visits import go, set_up


def test_back_up_now_from_a_phone(server, phone):
    base = server["base"]
    driver = phone
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    set_up(driver, base)
    go(driver, base + "/admin/backups")
    assert "`" not in driver.find_element(By.TAG_NAME, "main").text
    assert driver.find_element(By.ID, "admin-users-link").get_attribute("href").endswith("/admin/users")
    submit(driver, "backup-now-form")
    WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.ID, "backup-now-form") and d.find_elements(By.CSS_SELECTOR, "#backups tbody tr"))
    wait_text(driver, "#backups", "verified")
    wide = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    shot(driver, "backup-now-01-phone")
    assert wide <= 0, f"the page is {wide}px wider than the phone"
