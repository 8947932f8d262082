// Settings → Import: sends the chosen takeout to the import API as the request body, shows the upload's
// progress, then the report (what was added) in the page's language.
(() => {
  "use strict";
  const form = document.getElementById("takeout-import-form");
  if (!form) return;
  const input = document.getElementById("takeout-file");
  const bar = document.getElementById("takeout-progress");
  const status = document.getElementById("takeout-status");
  const button = document.getElementById("takeout-import-button");
  const report = document.getElementById("takeout-report");
  const forms = JSON.parse(document.getElementById("takeout-report-strings").textContent || "{}");
  const say = (text, error = false) => {
    status.textContent = text;
    status.classList.toggle("error-text", error);
  };
  const grouped = (n) => Number(n).toLocaleString(form.dataset.locale);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const file = input.files[0];
    if (!file) return;
    if (file.size > Number(form.dataset.maxBytes)) { say(form.dataset.msgTooLarge, true); return; }
    report.hidden = true;
    report.replaceChildren();
    const ui = { bar, button, say, uploading: form.dataset.msgUploading, working: form.dataset.msgImporting, aborted: form.dataset.msgAborted };
    window.hibiSendFile("/api/v1/me/import", file, "application/zip", ui, (xhr) => {
      if (xhr.status === 200 && xhr.response) {
        bar.value = 100;
        say(form.dataset.msgDone);
        for (const key of ["diaryEntries", "healthRecords", "visits", "locationPoints", "savedPlaces"]) {
          const count = Number(xhr.response[key] || 0);
          const item = document.createElement("li");
          item.dataset.kind = key;
          const template = (forms[key] || {})[count === 1 ? "one" : "other"] || "%@";
          item.textContent = template.replace("%@", grouped(count));
          report.append(item);
        }
        const note = document.createElement("li");
        note.className = "muted";
        note.textContent = form.dataset.msgNotTwice;
        report.append(note);
        report.hidden = false;
      } else {
        bar.hidden = true;
        const message = xhr.response && xhr.response.error ? xhr.response.error.message : `HTTP ${xhr.status}`;
        say(`${form.dataset.msgFailed} ${message}`, true);
      }
    });
  });
})();
