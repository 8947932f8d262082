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
  // A form that deletes or signs out everywhere asks first, on every page (the words come with the form).
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
  // Filters folded on a phone start open where there is room for them.
  if (window.matchMedia("(min-width: 768px)").matches) {
    for (const fold of document.querySelectorAll("details[data-open-wide]")) fold.open = true;
  }
  // Offer the browser's own time zone on the setup form.
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  for (const field of document.querySelectorAll("input[data-browser-time-zone]")) {
    if (zone) field.value = zone;
  }
});

// A file sent as the request body (no multipart, so the server can stream it) with the upload's progress
// on a <progress> bar; once the bytes are sent the bar turns indeterminate while the server works.
// ui: { bar, button, say(text, error), uploading, working, aborted }; done(xhr) runs when the answer came.
window.hibiSendFile = (url, file, contentType, ui, done) => {
  const xhr = new XMLHttpRequest();
  xhr.open("POST", url);
  xhr.setRequestHeader("X-CSRF-Token", document.querySelector('meta[name="csrf-token"]')?.content ?? "");
  xhr.setRequestHeader("Content-Type", contentType);
  xhr.responseType = "json";
  ui.bar.hidden = false;
  ui.bar.value = 0;
  ui.button.disabled = true;
  ui.button.setAttribute("aria-busy", "true");
  ui.say(ui.uploading);
  xhr.upload.addEventListener("progress", (e) => {
    if (!e.lengthComputable) return;
    const percent = Math.round((e.loaded / e.total) * 100);
    ui.bar.value = percent;
    ui.say(`${ui.uploading} ${percent}%`);
  });
  xhr.upload.addEventListener("load", () => {
    ui.bar.removeAttribute("value");
    ui.say(ui.working);
  });
  const finish = () => {
    ui.button.disabled = false;
    ui.button.removeAttribute("aria-busy");
  };
  xhr.addEventListener("load", () => { finish(); done(xhr); });
  for (const name of ["error", "abort", "timeout"]) {
    xhr.addEventListener(name, () => { finish(); ui.bar.hidden = true; ui.say(ui.aborted, true); });
  }
  xhr.send(file);
};

// Scripts call the JSON API with the session cookie; this header proves the call comes from Hibi's page.
window.hibiFetch = (url, options = {}) => {
  const token = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
  const headers = new Headers(options.headers || {});
  headers.set("X-CSRF-Token", token);
  return fetch(url, { credentials: "same-origin", ...options, headers });
};
