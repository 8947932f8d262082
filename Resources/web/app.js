// Small progressive enhancements; every page works without them.
document.documentElement.classList.add("js");

document.addEventListener("DOMContentLoaded", () => {
  // Submit the language switch as soon as a language is picked.
  for (const select of document.querySelectorAll("select[data-autosubmit]")) {
    select.addEventListener("change", () => select.form.submit());
  }
  // Menus close with Escape (focus back on their summary) and when a click lands outside them.
  const menus = [...document.querySelectorAll("details.user-menu")];
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    for (const menu of menus.filter((m) => m.open)) {
      menu.open = false;
      menu.querySelector("summary")?.focus();
    }
  });
  document.addEventListener("click", (event) => {
    for (const menu of menus) if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
  // Offer the browser's own time zone on the setup form.
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  for (const field of document.querySelectorAll("input[data-browser-time-zone]")) {
    if (zone) field.value = zone;
  }
});

// Scripts call the JSON API with the session cookie; this header proves the call comes from Hibi's page.
window.hibiFetch = (url, options = {}) => {
  const token = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
  const headers = new Headers(options.headers || {});
  headers.set("X-CSRF-Token", token);
  return fetch(url, { credentials: "same-origin", ...options, headers });
};
