"""The journal in the browser: a day page across features, its rating, on a phone too, and search everywhere."""
import datetime

from selenium.webdriver.common.by import By

from conftest import shot
from test_accounts import fill, settle, submit, wait_text
from test_diary import set_up, unlock_with_password


def write_entry(browser, base, text):
    browser.get(base + "/diary/new")
    today = datetime.date.today().isoformat()
    browser.execute_script("document.getElementById('date').value = arguments[0]", today)
    fill(browser, text=text, tags="walk")
    browser.find_element(By.CSS_SELECTOR, "label.mood-option input[value=happiness] + span").click()
    submit(browser, "entry-form")
    wait_text(browser, "main", text)
    return today


def test_a_day_shows_the_entry_rates_the_day_and_search_finds_it(server, browser):
    base = server["base"]
    set_up(browser, base)
    unlock_with_password(browser, base)
    today = write_entry(browser, base, "Picnic under the ginkgo trees")

    # The first page leads to today's page.
    browser.get(base + "/")
    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.ID, "open-today").click()
    settle(browser, old)
    assert browser.current_url.endswith(f"/day/{today}")
    wait_text(browser, "#day-diary", "Picnic under the ginkgo trees")
    # The confirmed happy mood suggests "Good"; choosing "Great" keeps the person's word.
    assert browser.find_element(By.ID, "rating-4").is_selected()
    assert browser.find_element(By.ID, "rating-from-moods").is_displayed()
    shot(browser, "journal-01-day")
    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.ID, "rating-5").click()
    browser.find_element(By.CSS_SELECTOR, "#day-rating button[type=submit]").click()
    settle(browser, old)
    assert browser.find_element(By.ID, "rating-5").is_selected()
    assert not browser.find_elements(By.ID, "rating-from-moods")

    # Previous and next day, and the date picker.
    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.ID, "previous-day").click()
    settle(browser, old)
    yesterday = (datetime.date.fromisoformat(today) - datetime.timedelta(days=1)).isoformat()
    assert browser.current_url.endswith(f"/day/{yesterday}")
    wait_text(browser, "#empty-day", "Nothing recorded on this day.")

    browser.get(base + "/search?q=ginkgo")
    wait_text(browser, "#results-diary", "Picnic under the ginkgo trees")
    shot(browser, "journal-02-search")


def test_the_day_page_fits_a_phone(server, phone):
    base = server["base"]
    set_up(phone, base)
    unlock_with_password(phone, base)
    today = write_entry(phone, base, "銀杏の下でピクニック")
    phone.get(base + f"/day/{today}")
    wait_text(phone, "#day-diary", "銀杏の下でピクニック")
    # Everything on the day page stays inside its column (the date picker and rating wrap on a phone).
    wide = phone.execute_script(
        "const edge = document.querySelector('main').getBoundingClientRect().right + 1;"
        "return [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > edge)"
        ".slice(0, 5).map(e => e.tagName + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right))")
    assert not wide, f"the day page is wider than its column on a phone: {wide}"
    shot(phone, "journal-03-day-phone")
