"""Screenshots of the pages issue 19 changed: desktop and phone, English and Japanese, light and dark."""
import pytest
from selenium.webdriver.common.by import By

from conftest import shot
from test_accounts import PASSWORD, fill, settle, submit

PAGES = {"today": "/", "trends": "/health/trends?type=weight&range=year", "goals": "/health/goals", "import": "/health/import",
         "places": "/visits/places", "videos": "/videos", "settings": "/settings"}


@pytest.mark.parametrize("width,height,device", [(1280, 900, "desktop"), (390, 844, "phone")])
def test_screens(server, browsers, width, height, device):
    base = server["base"]
    driver = browsers(width=width, height=height)
    driver.get(base + "/setup")
    fill(driver, username="aiko", display_name="Aiko", password=PASSWORD, password_confirm=PASSWORD)
    submit(driver, "setup-form")
    for language in ("en", "ja"):
        if language == "ja":
            old = driver.find_element(By.TAG_NAME, "html")
            driver.execute_script("const f = document.getElementById('language-select'); f.value = 'ja'; f.form.submit();")
            settle(driver, old)
        for theme in ("light", "dark"):
            driver.add_cookie({"name": "hibi-theme", "value": theme, "path": "/"})
            for name, path in PAGES.items():
                driver.get(base + path)
                width_now, viewport = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
                assert width_now <= viewport, f"{path} scrolls sideways: {width_now}px in {viewport}px"
                shot(driver, f"fh-{device}-{language}-{theme}-{name}")
