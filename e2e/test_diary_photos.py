"""The diary list and several photos per entry (issue 19, item 15), in the browser on desktop and phone."""
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ROOT, shot
from test_accounts import fill, submit, wait_text
from test_first_hour import grey_photo, open_new_entry


def face_photo():
    face = ROOT / ".cache" / "face-fixtures" / "frames" / "wolfgang" / "0084.jpg"
    if not face.exists():
        pytest.fail("face fixtures missing: run scripts/setup.sh test")
    return str(face)


def test_an_entry_with_a_landscape_and_a_face_lists_under_its_day_with_a_thumbnail(server, browser):
    base = server["base"]
    open_new_entry(browser, base)
    # Two photos picked at once: the first has no face, the mood is suggested from the second.
    browser.find_element(By.ID, "photo").send_keys(grey_photo() + "\n" + face_photo())
    WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".mood-option.suggested"))
    fill(browser, text="A walk by the river, and a selfie at the end.")
    submit(browser, "entry-form")
    WebDriverWait(browser, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#entry-photos .entry-photo")) == 2)
    # Every photo loads (polled: on a loaded machine the page is there before its images).
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(
        "return [...document.querySelectorAll('#entry-photos img')].every(i => i.complete && i.naturalWidth > 0)"))
    # The estimate came from the photo with a face (the second), and the page says which.
    sources = [img.get_attribute("data-mood-source") for img in browser.find_elements(By.CSS_SELECTOR, "#entry-photos img")]
    assert sources == ["false", "true"], sources
    assert browser.find_elements(By.ID, "mood-estimate")
    shot(browser, "diary-photos-01-detail")

    browser.get(base + "/diary")
    day = browser.find_element(By.CSS_SELECTOR, "#entries .entry-day")
    assert day.find_element(By.CSS_SELECTOR, "h2.day-heading a").get_attribute("href").endswith("/day/" + day.get_attribute("data-day"))
    thumb = day.find_element(By.CSS_SELECTOR, ".entry-thumb")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", thumb))
    assert thumb.rect["width"] == 72
    # The text is text (not link-coloured, not inside a link); the card still opens the entry on a click.
    assert browser.execute_script("return document.querySelector('.entry-excerpt').closest('a') === null")
    assert "📷 2" in day.text
    assert browser.find_element(By.ID, "diary-filter-fold").get_attribute("open") is not None, "filters are folded on a desktop"
    shot(browser, "diary-photos-02-list")
    # A click on the text lands on the entry's link, stretched over the card.
    ActionChains(browser).move_to_element(browser.find_element(By.CSS_SELECTOR, ".entry-excerpt")).click().perform()
    wait_text(browser, "#entry", "A walk by the river")


def test_on_a_phone_the_filters_fold_away(server, phone):
    base = server["base"]
    open_new_entry(phone, base)
    fill(phone, text="Rainy day at home.")
    submit(phone, "entry-form")
    wait_text(phone, "#entry", "Rainy day")
    phone.get(base + "/diary")
    fold = phone.find_element(By.ID, "diary-filter-fold")
    assert fold.get_attribute("open") is None
    assert not phone.find_element(By.CSS_SELECTOR, "#diary-filter-fold select[name=mood]").is_displayed()
    phone.find_element(By.CSS_SELECTOR, "#diary-filter-fold summary").click()
    assert phone.find_element(By.CSS_SELECTOR, "#diary-filter-fold select[name=mood]").is_displayed()
    shot(phone, "diary-photos-03-phone-list")
