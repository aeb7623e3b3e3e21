// Progress of a background job: polls the job's small JSON view about once a second and
// updates the server-rendered bar. The page itself stays the record: a reload renders the
// current state again, and a finished job sends the browser to its result (or reloads to show
// the error); a finished build of a file downloads it. A section shown later (qos_report.js) is watched through
// window.fabricJobProgress.watch. Plain JS, no dependencies.
(function () {
  "use strict";

  function show(section, data) {
    var percent = Math.round(data.percent || 0);
    section.querySelectorAll("[data-job-field]").forEach(function (el) {
      var key = el.getAttribute("data-job-field");
      if (key === "percent") {
        el.value = percent;
        el.textContent = percent + "%";
      } else if (key === "percent_text") {
        el.textContent = percent + "%";
      } else if (key === "stage") {
        el.textContent = data.stage || "waiting for a worker";
      } else if (key === "status_label") {
        el.textContent = data.status_label;
        el.className = "status status-" + data.status;
      }
    });
  }

  // onTerminal (optional): called with the job's status once it has ended, instead of the page's own
  // data-on-done (the revision page's QoS section fetches its report again).
  function watch(section, onTerminal) {
    var url = section.getAttribute("data-job-status-url");
    var onDone = section.getAttribute("data-on-done");
    var failures = 0;

    function tick() {
      fetch(url, {credentials: "same-origin", cache: "no-store", headers: {Accept: "application/json"}})
        .then(function (response) {
          if (!response.ok) { throw new Error("HTTP " + response.status); }
          return response.json();
        })
        .then(function (data) {
          failures = 0;
          show(section, data);
          if (!data.terminal) {
            window.setTimeout(tick, 1000);
          } else if (typeof onTerminal === "function") {
            onTerminal(data);
          } else if (data.status === "succeeded" && onDone === "result" && data.revision_url) {
            window.location.assign(data.revision_url);
          } else if (data.status === "succeeded" && onDone === "download" && data.file_url) {
            // The file is an attachment: the browser saves it and this page stays, with its link shown.
            var box = section.querySelector("[data-job-download]");
            if (box) { box.hidden = false; }
            window.location.assign(data.file_url);
          } else {
            window.location.reload();
          }
        })
        .catch(function () {
          // A restarting server or a dropped connection: back off, keep trying.
          failures += 1;
          window.setTimeout(tick, Math.min(10000, 1000 * Math.pow(2, failures)));
        });
    }
    window.setTimeout(tick, 1000);
  }

  window.fabricJobProgress = {watch: watch};
  document.querySelectorAll("[data-job-status-url]").forEach(function (section) { watch(section); });
})();
