"""A takeout's location history back in (issue 17): the visits/location-points.csv a Hibi takeout
holds, chosen on the Import & export page, restores the points and offers the stay found in them."""
import datetime
import os
import tempfile

from selenium.webdriver.common.by import By

from conftest import shot
from test_accounts import wait_text
from test_visits import go, set_up


def location_points_csv():
    """Ten minutes walking north, twenty minutes at one spot, ten minutes on: a minute apart, as a takeout writes them."""
    start = datetime.datetime(2024, 5, 5, 0, 0, tzinfo=datetime.timezone.utc)
    lines = ["time,latitude,longitude"]
    lat = 35.60
    for minute in range(41):
        if minute < 10 or minute > 30:
            lat += 0.003
        stamp = (start + datetime.timedelta(minutes=minute)).strftime("%Y-%m-%dT%H:%M:%SZ")
        lines.append(f"{stamp},{lat:.6f},139.7")
    path = os.path.join(tempfile.mkdtemp(), "location-points.csv")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def test_a_takeouts_location_points_go_back_in_through_the_transfer_page(server, browser):
    base = server["base"]
    set_up(browser, base)

    go(browser, base + "/visits/transfer")
    wait_text(browser, "#import", "location-points.csv")
    browser.find_element(By.ID, "import-file").send_keys(location_points_csv())
    browser.find_element(By.ID, "import-button").click()
    wait_text(browser, "#import-result", "Location points: 41 added")
    wait_text(browser, "#import-result", "41 points stored")
    wait_text(browser, "#import-result", "1 stay detected to confirm")
    shot(browser, "location-restore-01-transfer")

    go(browser, base + "/visits/stays")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#open-stays li.stay")) == 1
