"""Google Maps' Saved Places in Japanese (issue 32): the Takeout file chosen on the Import & export page
becomes saved places, listed on their own page, and one of them is logged as a visit."""
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import shot
from test_accounts import wait_text
from test_visits import go, set_up

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "Tests/Fixtures/locations/google-saved-places-2018.json")


def japanese(driver):
    """Switches the signed-in person to Japanese, as the language menu does."""
    driver.execute_script("const f = document.getElementById('language-select'); f.value = 'ja'; f.form.submit();")
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ja")


def test_saved_places_import_list_and_log_a_visit_in_japanese(server, browser):
    base = server["base"]
    set_up(browser, base)
    japanese(browser)

    go(browser, base + "/visits/saved-places")
    wait_text(browser, "#saved-places-empty", "保存した場所はまだありません")
    # The section menu names the page like the other visits pages.
    assert browser.find_element(By.CSS_SELECTOR, '.visits-subnav a[aria-current="page"]').text == "保存した場所"

    go(browser, base + "/visits/transfer")
    browser.find_element(By.ID, "import-file").send_keys(FIXTURE)
    browser.find_element(By.ID, "import-button").click()
    wait_text(browser, "#import-result", "保存した場所を 3 件追加しました。")
    wait_text(browser, "#import-result", "Google マップの保存した場所として読み込みました")
    wait_text(browser, "#import-result", "保存した場所: 3 件追加")
    shot(browser, "saved-places-00-import-ja")

    # On the visits map they are marked apart from visits (there are none yet).
    go(browser, base + "/visits")
    WebDriverWait(browser, 15).until(lambda d: d.find_element(By.ID, "visits-map").get_attribute("data-saved-markers") == "3")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#visits-map path.saved-place-marker")) == 3
    shot(browser, "saved-places-00b-map-ja")

    go(browser, base + "/visits/saved-places")
    places = browser.find_elements(By.CSS_SELECTOR, "#saved-places li.saved-place")
    assert [p.find_element(By.CSS_SELECTOR, ".visit-name").text for p in places] == \
        ["LimeRed Teahouse", "The Greater Boston Food Bank", "Hopewell Bar & Kitchen"]
    assert "3 件" in browser.find_element(By.ID, "saved-places-count").text
    shot(browser, "saved-places-01-list-ja")

    first = places[0]
    when = first.find_element(By.CSS_SELECTOR, 'input[name="visitedAt"]')
    browser.execute_script("arguments[0].value = '2024-05-01T12:30';", when)
    button = first.find_element(By.CSS_SELECTOR, "button.log-visit-button")
    assert button.text == "訪問として記録"
    button.click()
    wait_text(browser, "h1", "LimeRed Teahouse")
    assert "/visits/" in browser.current_url and "saved=1" in browser.current_url
    shot(browser, "saved-places-02-visit-ja")

    # The visit is in the signed log, and the place stays saved for the next time.
    go(browser, base + "/visits/verify")
    assert browser.find_element(By.CSS_SELECTOR, "#verify-result").get_attribute("class").split()[-1] == "intact"
    assert browser.find_element(By.ID, "verify-records").text == "1"
    go(browser, base + "/visits/saved-places")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#saved-places li.saved-place")) == 3
