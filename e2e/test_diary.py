"""Diary in the browser: locked on a new session, password unlock, an entry with a mood, statistics and calendar."""
import datetime

from selenium.webdriver.common.by import By

from conftest import shot
from test_accounts import PASSWORD, fill, settle, submit, wait_text


def set_up(browser, base):
    browser.get(base + "/setup")
    fill(browser, username="aiko", display_name="Aiko", password=PASSWORD, password_confirm=PASSWORD)
    submit(browser, "setup-form")
    wait_text(browser, "h1", "Hello")


def unlock_with_password(browser, base):
    browser.get(base + "/diary")
    assert "/diary/unlock" in browser.current_url, "a new session must find the diary locked"
    fill(browser, password=PASSWORD)
    submit(browser, "unlock-password")
    assert browser.current_url.rstrip("/").endswith("/diary")


def test_write_an_entry_and_see_it_in_statistics_and_calendar(server, browser):
    base = server["base"]
    set_up(browser, base)
    unlock_with_password(browser, base)
    wait_text(browser, "main", "Your diary is empty")
    shot(browser, "diary-01-empty")

    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.ID, "new-entry").click()
    settle(browser, old)
    today = datetime.date.today().isoformat()
    browser.execute_script("document.getElementById('date').value = arguments[0]", today)
    fill(browser, text="Walked along the river. The leaves were red and gold.", tags="walk, autumn")
    browser.find_element(By.CSS_SELECTOR, "label.mood-option input[value=happiness] + span").click()
    shot(browser, "diary-02-new-entry")
    submit(browser, "entry-form")
    wait_text(browser, "#confirmed-mood", "Happy")
    assert "Walked along the river" in browser.find_element(By.CSS_SELECTOR, ".entry-text").text
    shot(browser, "diary-03-entry")

    browser.get(base + "/diary?q=RIVER")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#entries .entry-card")) == 1
    browser.get(base + "/diary?q=mountain")
    wait_text(browser, "main", "No entries match")

    browser.get(base + "/diary/stats")
    bar = browser.find_element(By.CSS_SELECTOR, '#distribution-chart g[data-mood="happiness"]')
    assert bar.get_attribute("data-count") == "1"
    assert "Happy" in browser.find_element(By.ID, "stat-most").text
    shot(browser, "diary-04-stats")

    browser.get(base + "/diary/calendar")
    cell = browser.find_element(By.CSS_SELECTOR, f'td[data-day="{today}"]')
    assert cell.get_attribute("data-mood") == "happiness"
    shot(browser, "diary-05-calendar")


def test_entry_errors_keep_the_text(server, phone):
    base = server["base"]
    set_up(phone, base)
    unlock_with_password(phone, base)
    phone.get(base + "/diary/new")
    phone.execute_script("document.getElementById('date').value = '2999-01-01'")
    fill(phone, text="A note from the future")
    submit(phone, "entry-form")
    wait_text(phone, ".notice.error", "future")
    assert phone.find_element(By.ID, "text").get_attribute("value") == "A note from the future"
    shot(phone, "diary-06-error-phone")
