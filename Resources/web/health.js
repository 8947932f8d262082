// Health pages: unit list follows the record type; Apple Health upload streams the file and polls progress.
document.addEventListener("DOMContentLoaded", () => {
  const type = document.getElementById("record-type");
  const unit = document.getElementById("record-unit");
  if (type && unit) {
    const map = Object.fromEntries(unit.dataset.units.split(";").map((pair) => pair.split("=")));
    type.addEventListener("change", () => {
      unit.replaceChildren(...(map[type.value] || "").split(",").map((u) => new Option(u, u)));
    });
  }

  const form = document.getElementById("apple-upload");
  if (!form) return;
  const bar = document.getElementById("import-progress");
  const message = document.getElementById("import-message");
  const fill = (template, ...args) => args.reduce((text, arg) => text.replace("%@", arg), template);

  const report = document.getElementById("import-report");
  // What the import did, one line per kind of element (added, duplicates, skipped and why).
  const showReport = (job) => {
    if (!report) return;
    report.replaceChildren(...(job.summary || []).map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    }));
  };

  const poll = async (id) => {
    const response = await window.hibiFetch(`/api/v1/health/imports/${id}`);
    const job = await response.json();
    bar.value = Math.round(job.progress * 100);
    showReport(job);
    if (job.state === "done") {
      const grouped = (n) => Number(n).toLocaleString(document.documentElement.lang || undefined);
      message.textContent = fill(form.dataset.done, grouped(job.inserted), grouped(job.duplicates));
      message.className = "notice success";
      form.querySelector("button").disabled = false;
    } else if (job.state === "failed") {
      message.textContent = `${form.dataset.failed}: ${job.error}`;
      message.className = "notice error";
      form.querySelector("button").disabled = false;
    } else {
      message.textContent = `${form.dataset.running} ${bar.value}% (${job.inserted + job.duplicates})`;
      setTimeout(() => poll(id), 700);
    }
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = document.getElementById("apple-file").files[0];
    if (!file) return;
    form.querySelector("button").disabled = true;
    bar.hidden = false;
    bar.value = 0;
    message.className = "";
    message.textContent = form.dataset.running;
    // The raw file is the body, so the server can stream it to disk without multipart parsing.
    const response = await window.hibiFetch(`/api/v1/health/imports?name=${encodeURIComponent(file.name)}`, {
      method: "POST",
      headers: { "Content-Type": "application/octet-stream" },
      body: file,
    });
    const job = await response.json();
    if (!response.ok) {
      message.textContent = `${form.dataset.failed}: ${job.error?.message ?? response.status}`;
      message.className = "notice error";
      form.querySelector("button").disabled = false;
      return;
    }
    form.dataset.job = job.id;
    poll(job.id);
  });
});
