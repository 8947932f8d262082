"""The journal in the browser: a day page across features, its rating, on a phone too, and search everywhere."""
import datetime
import json

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import absent, shot
from test_accounts import fill, settle, submit, wait_text
from test_diary import set_up, unlock_with_password
from test_videos import api


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

    # The first page is today's page.
    browser.get(base + "/")
    wait_text(browser, "#day-diary", "Picnic under the ginkgo trees")
    assert browser.find_element(By.CSS_SELECTOR, f'#day-calendar a[data-day="{today}"]').get_attribute("aria-current") == "date"
    browser.get(base + f"/day/{today}")
    # The confirmed happy mood suggests "Good"; choosing "Great" keeps the person's word.
    assert browser.find_element(By.ID, "rating-4").is_selected()
    assert browser.find_element(By.ID, "rating-from-moods").is_displayed()
    shot(browser, "journal-01-day")
    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.ID, "rating-5").click()
    browser.find_element(By.CSS_SELECTOR, "#day-rating button[type=submit]").click()
    settle(browser, old)
    assert browser.find_element(By.ID, "rating-5").is_selected()
    assert not absent(browser, By.ID, "rating-from-moods")

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


def iso(moment):
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fill_a_day(browser, base, clip_path):
    """Today: a diary entry, two health records, two visits (one with a note) and a watched video, all through the
    page's own API calls; returns the user's today as the page sees it."""
    browser.get(base + "/videos")
    browser.find_element(By.ID, "upload-file").send_keys(str(clip_path))
    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.ID, "upload-button").click()
    settle(browser, old)
    WebDriverWait(browser, 30).until(lambda d: "/videos/" in d.current_url and d.find_elements(By.ID, "player"))
    video_id = browser.current_url.rstrip("/").split("/")[-1]
    assert json.loads(api(browser, "POST", f"/api/v1/videos/{video_id}/plays"))["id"] == video_id
    # A few minutes ago, so everything is on today (in the person's zone) unless the test runs across midnight.
    now = datetime.datetime.now(datetime.timezone.utc)
    entry = json.loads(api(browser, "POST", "/api/v1/diary/entries",
                           {"date": iso(now - datetime.timedelta(minutes=3)), "text": "Tea by the ginkgo pond", "tags": ["walk"]}))
    assert entry.get("id"), entry
    for minutes, value in ((9, 3200), (8, 1800)):
        record = json.loads(api(browser, "POST", "/api/v1/health/records",
                                {"type": "steps", "value": value, "unit": "count", "start": iso(now - datetime.timedelta(minutes=minutes))}))
        assert record.get("record", {}).get("id"), record
    for minutes, name, notes in ((7, "Koishikawa Garden", "fed the carp near the ginkgo"), (5, "Kanda Tea House", "")):
        visit = json.loads(api(browser, "POST", "/api/v1/visits",
                               {"name": name, "latitude": 35.7056, "longitude": 139.7495, "visitedAt": iso(now - datetime.timedelta(minutes=minutes)),
                                "notes": notes}))
        assert visit.get("id"), visit
    return json.loads(api(browser, "GET", "/api/v1/timeline?limit=1"))["days"][0]["date"]


def test_today_shows_every_domain_moves_to_yesterday_and_search_finds_diary_and_visit(server, browser, clip):
    base = server["base"]
    set_up(browser, base)
    unlock_with_password(browser, base)
    today = fill_a_day(browser, base, clip)

    browser.get(base + "/")
    wait_text(browser, "#day-diary", "Tea by the ginkgo pond")
    wait_text(browser, "#day-health", "5,000")
    wait_text(browser, "#day-visits", "Koishikawa Garden")
    wait_text(browser, "#day-visits", "Kanda Tea House")
    wait_text(browser, "#day-videos", "Garden walk")
    dots = browser.find_elements(By.CSS_SELECTOR, f'#day-calendar a[data-day="{today}"] .dot')
    assert {d.get_attribute("class") for d in dots} == {"dot dot-diary", "dot dot-health", "dot dot-visits", "dot dot-videos"}
    shot(browser, "journal-04-today-desktop")
    browser.execute_script("document.getElementById('day-diary').scrollIntoView()")
    shot(browser, "journal-04b-today-domains-desktop")
    browser.execute_script("document.getElementById('day-calendar').scrollIntoView()")
    shot(browser, "journal-04c-today-calendar-desktop")

    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.ID, "previous-day").click()
    settle(browser, old)
    yesterday = (datetime.date.fromisoformat(today) - datetime.timedelta(days=1)).isoformat()
    assert browser.current_url.endswith(f"/day/{yesterday}")
    wait_text(browser, "#empty-day", "Nothing recorded on this day.")

    browser.get(base + "/search?q=ginkgo")
    wait_text(browser, "#results-diary", "Tea by the ginkgo pond")
    wait_text(browser, "#results-visits", "Koishikawa Garden")
    assert "Kanda Tea House" not in browser.find_element(By.ID, "results-visits").text
    shot(browser, "journal-05-search-desktop")

    browser.get(base + "/timeline")
    wait_text(browser, "#timeline-days", "Koishikawa Garden")
    shot(browser, "journal-06-timeline-desktop")
    browser.get(base + "/review/week/" + datetime.date.fromisoformat(today).strftime("%G-W%V"))
    wait_text(browser, "#figure-steps", "5,000")
    shot(browser, "journal-07-review-desktop")


def test_today_and_the_timeline_fit_a_phone(server, phone, clip):
    base = server["base"]
    set_up(phone, base)
    unlock_with_password(phone, base)
    fill_a_day(phone, base, clip)
    for path, ready, name in (("/", "#day-calendar", "journal-08-today-phone"), ("/timeline", "#timeline-days", "journal-09-timeline-phone"),
                              ("/insights", "main", "journal-10-insights-phone")):
        phone.get(base + path)
        wait_text(phone, ready, "")
        wide = phone.execute_script(
            "const edge = document.querySelector('main').getBoundingClientRect().right + 1;"
            "return [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > edge)"
            ".slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))")
        assert not wide, f"{path} is wider than its column on a phone: {wide}"
        shot(phone, name)
        if path == "/":
            phone.execute_script("document.getElementById('day-calendar').scrollIntoView()")
            shot(phone, name + "-calendar")
