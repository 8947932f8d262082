"""Visits as a person uses them: add one from a (faked) GPS fix, find it on the map, edit it,
check the signed log; then verify an export with the stand-alone script, and tamper with it."""
import json
import os
import pathlib
import subprocess
import sys
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ROOT, shot
from test_accounts import PASSWORD, fill, settle, submit, wait_text

TOKYO = {"latitude": 35.681236, "longitude": 139.767125, "accuracy": 12}


def set_up(driver, base):
    driver.get(base + "/setup")
    fill(driver, username="aiko", display_name="Aiko", password=PASSWORD, password_confirm=PASSWORD)
    submit(driver, "setup-form")
    wait_text(driver, "h1", "Hello, Aiko")


def fake_position(driver, base, position):
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": base, "permissions": ["geolocation"]})
    driver.execute_cdp_cmd("Emulation.setGeolocationOverride", position)


def add_visit_here(driver, base, name, position=TOKYO):
    """Adds a visit from a faked GPS fix through the form; returns the visit's page path."""
    fake_position(driver, base, position)
    go(driver, base + "/visits/new")
    driver.find_element(By.ID, "use-location").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "latitude").get_attribute("value") == f"{position['latitude']:.7f}")
    fill(driver, name=name)
    submit(driver, "visit-form")
    wait_text(driver, "#visit-title", name)
    return driver.current_url.split("?")[0].split(base, 1)[1]


def go(driver, url):
    driver.get(url)
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")


def test_add_with_geolocation_see_on_map_edit_and_verify(server, browser, phone):
    base = server["base"]
    set_up(browser, base)
    fake_position(browser, base, TOKYO)

    go(browser, base + "/visits")
    wait_text(browser, "main", "No visits yet")
    browser.find_element(By.ID, "add-visit").click()
    wait_text(browser, "h1", "Add a visit")
    browser.find_element(By.ID, "use-location").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "latitude").get_attribute("value") == "35.6812360")
    assert browser.find_element(By.ID, "longitude").get_attribute("value") == "139.7671250"
    assert browser.find_element(By.ID, "accuracy").get_attribute("value") == "12"
    # The picker map moved to the fix and shows a marker there.
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#picker-map .leaflet-marker-icon"))
    fill(browser, name="Tokyo Station", labels="train, work", group="Tokyo trip", companions="Ken", notes="Meeting at the Marunouchi exit")
    shot(browser, "visits-01-form-geolocated")
    submit(browser, "visit-form")
    wait_text(browser, "#visit-title", "Tokyo Station")
    wait_text(browser, ".notice.success", "Saved and signed")
    assert "35.681236, 139.767125" in browser.find_element(By.ID, "visit-coordinates").text
    shot(browser, "visits-02-detail")

    # On the map: one marker; clicking it opens a popup naming the visit.
    go(browser, base + "/visits")
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "visits-map").get_attribute("data-markers") == "1")
    marker = WebDriverWait(browser, 10).until(lambda d: d.find_element(By.CSS_SELECTOR, "#visits-map .leaflet-marker-icon"))
    # The map may still be animating its zoom, which moves the marker under the pointer; a DOM click
    # reaches Leaflet's handler the same way without depending on where the animation is.
    browser.execute_script("arguments[0].click()", marker)
    wait_text(browser, ".leaflet-popup-content", "Tokyo Station")
    # No tile server is reachable here, so the bundled world outline is what the map shows.
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#visits-map .leaflet-outline-pane path"))
    shot(browser, "visits-03-map")

    # Edit from the detail page.
    browser.find_element(By.CSS_SELECTOR, ".leaflet-popup-content a.popup-name").click()
    wait_text(browser, "#visit-title", "Tokyo Station")
    browser.find_element(By.ID, "edit-visit").click()
    wait_text(browser, "h1", "Edit visit")
    fill(browser, name="Tokyo Station Hotel")
    submit(browser, "visit-form")
    wait_text(browser, "#visit-title", "Tokyo Station Hotel")
    wait_text(browser, "#history", "#2 edited")

    go(browser, base + "/visits/verify")
    wait_text(browser, "#verify-status", "Consistent")
    wait_text(browser, "#verify-message", "2 records")
    shot(browser, "visits-04-verify")

    go(browser, base + "/visits/places")
    wait_text(browser, "#top-places", "Tokyo Station Hotel")
    shot(browser, "visits-05-places")

    # Phone layout of the list with the map.
    for cookie in browser.get_cookies():
        if cookie["name"].startswith("hibi"):
            phone.get(base + "/healthz")
            phone.add_cookie({"name": cookie["name"], "value": cookie["value"], "path": "/"})
    go(phone, base + "/visits")
    WebDriverWait(phone, 10).until(lambda d: d.find_element(By.ID, "visits-map").get_attribute("data-markers") == "1")
    shot(phone, "visits-06-phone-list")

    # The command line agrees.
    result = subprocess.run([server["binary"], "visits", "verify"], env=server["env"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "intact" in result.stdout

    # An export checks out with the stand-alone script, and a tampered copy does not.
    session = next(c["value"] for c in browser.get_cookies() if c["name"] == "hibi_session")
    request = urllib.request.Request(base + "/api/v1/visits/export?format=geojson", headers={"Cookie": "hibi_session=" + session})
    exported = urllib.request.urlopen(request, timeout=10).read()
    export_path = pathlib.Path(server["data"]) / "export.geojson"
    export_path.write_bytes(exported)
    script = str(ROOT / "scripts" / "verify-visits-export.py")
    ok = subprocess.run([sys.executable, script, str(export_path)], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "intact: 2 records" in ok.stdout

    document = json.loads(exported)
    document["hibi"]["records"][0]["body"] = document["hibi"]["records"][0]["body"].replace("Tokyo Station", "Osaka Station")
    export_path.write_text(json.dumps(document))
    bad = subprocess.run([sys.executable, script, str(export_path)], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1
    assert "record #1 was changed" in bad.stdout

    document = json.loads(exported)
    document["features"][0]["properties"]["name"] = "Somewhere else"
    export_path.write_text(json.dumps(document))
    bad = subprocess.run([sys.executable, script, str(export_path)], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1
    assert "name in the export differs" in bad.stdout


def test_import_page_reports_position_of_a_bad_file(server, browser, tmp_path):
    base = server["base"]
    set_up(browser, base)
    good = tmp_path / "good.gpx"
    good.write_text('<?xml version="1.0"?>\n<gpx version="1.1">\n'
                    '<wpt lat="34.9875" lon="135.7592"><time>2024-05-01T01:00:00Z</time><name>Kyoto Tower</name></wpt>\n</gpx>\n')
    bad = tmp_path / "bad.gpx"
    bad.write_text('<?xml version="1.0"?>\n<gpx version="1.1">\n<wpt lat="91" lon="0"><time>2024-05-01T01:00:00Z</time><name>x</name></wpt>\n</gpx>\n')
    go(browser, base + "/visits/transfer")
    browser.find_element(By.ID, "import-file").send_keys(str(bad))
    browser.find_element(By.ID, "import-button").click()
    wait_text(browser, "#import-result", "Nothing was imported")
    assert "line 3" in browser.find_element(By.ID, "import-result").text
    shot(browser, "visits-07-import-error")
    browser.find_element(By.ID, "import-file").clear()
    browser.find_element(By.ID, "import-file").send_keys(str(good))
    browser.find_element(By.ID, "import-button").click()
    wait_text(browser, "#import-result", "Imported 1 visits")
    # The result says what happened to each kind of element.
    wait_text(browser, "#import-result .import-report", "Waypoints: 1 added")
    go(browser, base + "/visits")
    wait_text(browser, "#visit-list", "Kyoto Tower")
