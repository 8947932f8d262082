"""Issue 33, items 2, 5 and 7, at the sizes where they broke: one navigation pattern (1366×768), asking
before deleting, grouped numbers, folded timeline filters, absolute live-location URLs, tables as cards
on a phone (390×844), and the review share card with every option ticked and long names."""
import datetime
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import absent, SCREENSHOTS, shot
from test_accounts import PASSWORD, fill, settle, submit, wait_text
from test_plain_words import to_japanese

LONG_NAME = "Aiko Takahashi-Yamamoto of Bunkyō"
LONG_PLACE = "Koishikawa Kōrakuen Garden, Bunkyō City, Tōkyō"


def set_up(driver, base, display_name="Aiko"):
    driver.get(base + "/setup")
    fill(driver, username="aiko", display_name=display_name, password=PASSWORD, password_confirm=PASSWORD)
    submit(driver, "setup-form")
    wait_text(driver, "h1", "Hello")


def add_steps(driver, base, value):
    driver.get(base + "/health")
    Select(driver.find_element(By.ID, "record-type")).select_by_value("steps")
    fill(driver, value=str(value))
    submit(driver, "record-form")


def test_every_section_has_its_menu_under_the_heading(server, browsers):
    # Its Content-Security-Policy violations are checked as the fixture gives the browser back.
    menus_follow_headings(server["base"], browsers(width=1366, height=768))


def menus_follow_headings(base, laptop):
    set_up(laptop, base)
    from test_diary import unlock_with_password
    unlock_with_password(laptop, base)
    for path in ("/health", "/health/trends", "/visits", "/visits/places", "/videos", "/diary", "/diary/new", "/diary/enroll"):
        laptop.get(base + path)
        heading = laptop.find_element(By.CSS_SELECTOR, "main h1")
        menu = laptop.find_element(By.CSS_SELECTOR, "main .section-nav")
        # The menu is the next thing after the heading (or its hgroup), below it, on every section's pages.
        after = laptop.execute_script("""
            const h = arguments[0];
            let next = h.nextElementSibling || (h.parentElement.tagName === 'HGROUP' ? h.parentElement.nextElementSibling : null);
            if (next && next.tagName === 'P' && h.parentElement.tagName === 'HGROUP') next = h.parentElement.nextElementSibling;
            while (next && (next.tagName === 'LINK' || next.tagName === 'SCRIPT')) next = next.nextElementSibling;
            return next === arguments[1] || (next && next.contains(arguments[1]));""", heading, menu)
        assert after, f"{path}: the section menu does not follow the heading"
        assert menu.rect["y"] >= heading.rect["y"] + heading.rect["height"] - 1, path
        assert laptop.title.endswith("· Hibi"), path
    laptop.get(base + "/diary/enroll")
    status = laptop.find_element(By.ID, "face-status").text
    assert "start" not in status.lower() and laptop.find_element(By.ID, "take-photo").text.endswith("Take photo"), status
    shot(laptop, "polish-enroll-1366")


def test_deleting_and_signing_out_everywhere_ask_first(server, browser):
    base = server["base"]
    set_up(browser, base)
    add_steps(browser, base, 8432)
    browser.get(base + "/health/goals")
    Select(browser.find_element(By.ID, "goal-type")).select_by_value("steps")
    fill(browser, target="500000")
    submit(browser, "goal-form")

    def press_and_answer(css, accept):
        browser.find_element(By.CSS_SELECTOR, css).click()
        alert = WebDriverWait(browser, 5).until(lambda d: d.switch_to.alert)
        question = alert.text
        alert.accept() if accept else alert.dismiss()
        return question

    browser.get(base + "/health")
    question = press_and_answer("#records-table button.danger", accept=False)
    assert "Delete this record" in question
    assert len(browser.find_elements(By.CSS_SELECTOR, "#records-table tbody tr")) == 1, "dismissed: the record stays"
    old = browser.find_element(By.TAG_NAME, "html")
    press_and_answer("#records-table button.danger", accept=True)
    settle(browser, old)
    assert not absent(browser, By.CSS_SELECTOR, "#records-table tbody tr")

    browser.get(base + "/health/goals")
    assert "Delete this goal" in press_and_answer("#goal-list form[data-confirm] button", accept=False)
    assert "Steps" in browser.find_element(By.ID, "goal-list").text

    browser.get(base + "/settings")
    assert "Sign out on all devices" in press_and_answer("#sign-out-everywhere button", accept=False)
    browser.get(base + "/settings")
    assert "/login" not in browser.current_url, "dismissed: still signed in"


def test_numbers_grouped_filters_folded_and_absolute_urls(server, phone, browsers):
    base = server["base"]
    set_up(phone, base)
    add_steps(phone, base, 8432)
    for language in ("en", "ja"):
        if language == "ja":
            to_japanese(phone)
        phone.get(base + "/health")
        summary = phone.find_element(By.CSS_SELECTOR, ".health-summary").text
        table = phone.find_element(By.ID, "records-table").text
        assert "8,432" in summary and "8,432" in table and "8432" not in summary + table, (summary, table)

        # The timeline's filters wait under their summary on a phone instead of filling its first screen.
        phone.get(base + "/timeline")
        fold = phone.find_element(By.ID, "timeline-filter-fold")
        assert fold.get_attribute("open") is None and fold.size["height"] < 80, fold.size
        shot(phone, f"polish-timeline-phone-{language}")

        phone.get(base + "/visits/stays")
        owntracks = phone.find_element(By.ID, "owntracks-url").text
        overland = phone.find_element(By.ID, "overland-url").text
        assert owntracks == base + "/api/v1/locations/owntracks" and overland == base + "/api/v1/locations/overland"
        assert "?token=" not in phone.find_element(By.ID, "live").text
    # On a wide screen the filters are open.
    wide = browsers(width=1280, height=900)
    wide.get(base + "/login")
    fill(wide, username="aiko", password=PASSWORD)
    submit(wide, "login-form")
    wide.get(base + "/timeline")
    assert wide.find_element(By.ID, "timeline-filter-fold").get_attribute("open") is not None


def test_tables_become_cards_on_a_phone(server, phone):
    base = server["base"]
    set_up(phone, base)
    add_steps(phone, base, 8432)
    phone.get(base + "/settings")
    fill(phone, name="A token with a rather long name for a phone")
    phone.find_element(By.ID, "token-password").send_keys(PASSWORD)
    submit(phone, "token-form")
    phone.get(base + "/admin/backups")
    submit(phone, "backup-now-form")
    WebDriverWait(phone, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#backups tbody tr"))
    for language in ("en", "ja"):
        if language == "ja":
            to_japanese(phone)
        for theme in ("light", "dark"):
            phone.add_cookie({"name": "hibi-theme", "value": theme, "path": "/"})
            for path, table in (("/health", "records-table"), ("/settings", "tokens"), ("/admin/users", "users"), ("/admin/backups", "backups")):
                phone.get(base + path)
                element = phone.find_element(By.ID, table)
                phone.execute_script("arguments[0].scrollIntoView()", element)
                width = phone.execute_script("return window.innerWidth")
                cells = phone.execute_script("""
                    return [...arguments[0].querySelectorAll('tbody td')].map(td => {
                      const r = td.getBoundingClientRect(); return [r.left, r.right, r.height, td.textContent.length]; });""", element)
                assert cells, path
                for left, right, height, length in cells:
                    assert left >= 0 and right <= width + 0.5, f"{path}: a cell reaches {right}px of {width}px"
                # A date or a name never stands one character per line.
                dates = phone.execute_script("return [...arguments[0].querySelectorAll('td[data-label]')].map(td => td.getBoundingClientRect().height)", element)
                assert max(dates) < 120, (path, dates)
                shot(phone, f"polish-cards-{table}-{language}-{theme}")


def download(driver, url):
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in driver.get_cookies())
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": cookies})) as response:
        return response.read()


CARD_BOXES = """
const done = arguments[arguments.length - 1];
fetch(arguments[0], {credentials: 'same-origin'}).then(r => r.text()).then(svg => {
  document.body.innerHTML = svg;
  const root = document.body.querySelector('svg');
  const boxes = [...root.querySelectorAll('text[class], g[class=card-badge]')].map(e => {
    const b = e.getBBox();
    let x = b.x, y = b.y;
    const t = e.getAttribute('transform');
    if (t) { const m = /translate\\(([-0-9.]+),([-0-9.]+)\\)/.exec(t); x += +m[1]; y += +m[2]; }
    return {kind: e.getAttribute('class'), text: e.textContent.slice(0, 40), x, y, w: b.width, h: b.height};
  });
  done(boxes);
});
"""


@pytest.mark.parametrize("language", ["en", "ja"])
def test_the_review_card_with_every_option_keeps_its_texts_apart(server, browser, tmp_path, language):
    base = server["base"]
    set_up(browser, base, display_name=LONG_NAME if language == "en" else "高橋山本あいこ(文京区小石川在住)")
    add_steps(browser, base, 8432)  # and the first badge
    now = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)
    place = LONG_PLACE if language == "en" else "小石川後楽園(東京都文京区後楽一丁目の大名庭園)"
    gpx = tmp_path / "place.gpx"
    gpx.write_text(f'<?xml version="1.0"?>\n<gpx version="1.1"><wpt lat="35.7053" lon="139.7497"><time>{now:%Y-%m-%dT%H:%M:%SZ}</time>'
                   f'<name>{place}</name></wpt></gpx>\n')
    browser.get(base + "/visits/transfer")
    browser.find_element(By.ID, "import-file").send_keys(str(gpx))
    browser.find_element(By.ID, "import-button").click()
    wait_text(browser, "#import-result .import-report", "1")
    from test_diary import unlock_with_password
    unlock_with_password(browser, base)
    browser.get(base + "/diary/new")
    fill(browser, text="A good day in the garden.")
    browser.find_element(By.CSS_SELECTOR, "label.mood-option input[value=happiness] + span").click()
    submit(browser, "entry-form")
    if language == "ja":
        to_japanese(browser)
    week = datetime.date.today().strftime("%G-W%V")
    card = f"{base}/review/week/{week}/card.png?name=1&mood=1&places=1&badge=1"
    png = download(browser, card)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / f"polish-review-card-{language}.png").write_bytes(png)

    browser.get(base + "/review/week/" + week)
    boxes = browser.execute_async_script(CARD_BOXES, card + "&format=svg")
    kinds = [b["kind"] for b in boxes]
    for kind in ("card-title", "card-name", "card-label", "card-value", "card-badge", "card-badge-name", "card-footer"):
        assert kind in kinds, (kind, kinds)
    assert kinds.count("card-value") == 4, boxes
    for b in boxes:
        assert b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["w"] <= 1200 and b["y"] + b["h"] <= 630, f"outside the card: {b}"
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            apart = a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"] or a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"]
            assert apart, f"overlap: {a} and {b}"
