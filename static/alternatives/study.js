// The study page: poll the study until its job ends (then reload to show the table and plot), sort the
// table by a column, and show only the Pareto front on request. No inline script or style (CSP).
(function () {
  "use strict";
  var state = document.getElementById("study-state");
  if (state && (state.dataset.status === "queued" || state.dataset.status === "running")) {
    var poll = function () {
      fetch(state.dataset.pollUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (s) {
          var pct = document.getElementById("study-percent");
          if (pct) { pct.textContent = Math.round(s.percent); }
          var bar = state.querySelector("progress");
          if (bar) { bar.value = s.percent; }
          if (s.status !== "queued" && s.status !== "running") { location.reload(); return; }
          setTimeout(poll, 1000);
        })
        .catch(function () { setTimeout(poll, 3000); });
    };
    setTimeout(poll, 1000);
  }

  var table = document.getElementById("candidates");
  if (!table) { return; }
  var body = table.tBodies[0];
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  heads.forEach(function (th, col) {
    var button = th.querySelector("button.sort");
    if (!button) { return; }
    button.addEventListener("click", function () {
      var asc = th.getAttribute("aria-sort") !== "ascending";
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var numeric = th.dataset.sort === "num";
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].dataset.value, y = b.cells[col].dataset.value;
        if (numeric) {
          // an empty cell (no price, no margin) sorts last either way
          if (x === "" || y === "") { return (x === "") - (y === ""); }
          return asc ? parseFloat(x) - parseFloat(y) : parseFloat(y) - parseFloat(x);
        }
        return asc ? x.localeCompare(y) : y.localeCompare(x);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  var frontOnly = document.getElementById("front-only");
  if (frontOnly) {
    frontOnly.addEventListener("change", function () {
      Array.prototype.forEach.call(body.rows, function (r) {
        r.classList.toggle("hidden", frontOnly.checked && r.dataset.pareto !== "1");
      });
    });
  }
})();
