"""Workout routes on the visits map (issue 17): import an Apple Health export whose workout has a
route, see the route drawn as a line on the visits map of its month and not on a month without it,
and find its points in the location history count of the import report."""
import os
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import absent, shot
from test_accounts import wait_text
from test_visits import go, set_up


def export_with_route():
    """A ride in Tokyo on 2024-05-05: 30 points a minute apart along a curve (a line needs corners to keep them)."""
    points = []
    for i in range(30):
        lat = 35.68 + i * 0.0015
        lon = 139.70 + (0.002 if i % 2 else 0) + i * 0.0005
        points.append(f'   <Location date="2024-05-05 18:{i:02d}:00 +0900" latitude="{lat:.6f}" longitude="{lon:.6f}" altitude="5"/>')
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<HealthData locale="en_US">',
             ' <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="30" durationUnit="min" totalDistance="6.5" totalDistanceUnit="km"'
             ' sourceName="Apple Watch" startDate="2024-05-05 18:00:00 +0900" endDate="2024-05-05 18:30:00 +0900">',
             '  <WorkoutRoute sourceName="Apple Watch" startDate="2024-05-05 18:00:00 +0900" endDate="2024-05-05 18:30:00 +0900">',
             *points, '  </WorkoutRoute>', ' </Workout>', '</HealthData>']
    path = os.path.join(tempfile.mkdtemp(), "export.xml")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def test_a_workout_route_is_a_line_on_the_visits_map_of_its_range(server, browser):
    base = server["base"]
    set_up(browser, base)

    go(browser, base + "/health/import")
    browser.find_element(By.ID, "apple-file").send_keys(export_with_route())
    browser.find_element(By.ID, "apple-submit").click()
    wait_text(browser, "#import-message", "Import finished", timeout=30)
    # The route's points joined the location history, and the report says how many.
    wait_text(browser, "#import-report", "Location history: 30 added", timeout=10)

    go(browser, base + "/visits?from=2024-05-01&to=2024-05-31")
    WebDriverWait(browser, 15).until(lambda d: d.find_element(By.ID, "visits-map").get_attribute("data-routes") == "1")
    lines = browser.find_elements(By.CSS_SELECTOR, "#visits-map .leaflet-overlay-pane path[data-workout]")
    assert len(lines) == 1
    # A line of the route's corners (every point of this zigzag is one), not a dot; Leaflet draws it as one path.
    count = browser.execute_script("return window.hibiVisitsMap.routes.getLayers()[0].getLatLngs().length")
    assert count == 30, count
    assert lines[0].get_attribute("d").startswith("M")
    shot(browser, "workout-routes-01-visits-map")

    # A month without the ride draws no route.
    go(browser, base + "/visits?from=2024-06-01&to=2024-06-30")
    WebDriverWait(browser, 15).until(lambda d: d.find_element(By.ID, "visits-map").get_attribute("data-routes") == "0")
    assert absent(browser, By.CSS_SELECTOR, "#visits-map .leaflet-overlay-pane path[data-workout]") == []
