"""axe-core on every page, in both languages and both colour schemes: serious and critical violations fail."""
import pytest
from axe_selenium_python import Axe
from selenium.webdriver.common.by import By

from conftest import shot
from test_accounts import PASSWORD, fill, settle, submit, wait_text

PAGES = ["/", "/diary/unlock", "/health", "/health/trends?type=weight", "/health/goals", "/health/badges", "/health/import",
         "/health/reminders", "/visits", "/visits/new", "/visits/places", "/videos", "/videos/playlists", "/settings"]


def serious(driver):
    axe = Axe(driver)
    axe.inject()
    # Only the violations are read: passes and incomplete checks would come back with one node each.
    results = axe.run(options={"resultTypes": ["violations"]})
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in results["violations"]
            if v["impact"] in ("serious", "critical")]


def set_theme(driver, base, theme):
    driver.get(base + "/login")
    driver.add_cookie({"name": "hibi-theme", "value": theme, "path": "/"})


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_page_passes_axe_in_both_languages(server, browser, theme):
    base = server["base"]
    browser.get(base + "/setup")
    found = {}
    found[f"/setup {theme}"] = serious(browser)
    fill(browser, username="aiko", display_name="Aiko", password=PASSWORD, password_confirm=PASSWORD)
    submit(browser, "setup-form")
    browser.add_cookie({"name": "hibi-theme", "value": theme, "path": "/"})
    for language in ("en", "ja"):
        if language == "ja":
            old = browser.find_element(By.TAG_NAME, "html")
            browser.execute_script("const f = document.getElementById('language-select'); f.value = 'ja'; f.form.submit();")
            settle(browser, old)
        for path in PAGES:
            browser.get(base + path)
            assert browser.execute_script("return document.documentElement.dataset.theme") == theme
            problems = serious(browser)
            if problems:
                shot(browser, f"axe-{theme}-{language}-{path.strip('/').replace('/', '-').split('?')[0] or 'today'}")
            found[f"{path} {language} {theme}"] = problems
    failures = {page: problems for page, problems in found.items() if problems}
    summary = sorted({(rule, str(targets)[:160]) for problems in failures.values() for rule, _, targets in problems})
    assert not failures, "\n".join(f"{rule}: {targets}" for rule, targets in summary) + "\n" + ", ".join(failures)
