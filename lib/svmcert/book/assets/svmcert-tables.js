/* svmcert: long tables of the book become searchable and sortable, offline (no library, no CDN).
   Every <table class="svmcert-interactive"> gets a search box above it (rows whose text contains
   every word typed stay visible) and clickable column headers (numeric cells sort by the number in
   their data-sort attribute, text cells alphabetically; a second click reverses). */
(function () {
  "use strict";
  function cellKey(cell) {
    var raw = cell.getAttribute("data-sort");
    if (raw !== null && raw !== "" && !isNaN(Number(raw))) { return { num: true, v: Number(raw) }; }
    return { num: false, v: (cell.textContent || "").trim().toLowerCase() };
  }
  function enhance(table) {
    if (table.getAttribute("data-svmcert-ready")) { return; }
    table.setAttribute("data-svmcert-ready", "1");
    if (!table.tBodies.length) { return; }
    // a grouped table has one <tbody> per group, headed by a row of class svmcert-group-row:
    // sorting reorders the rows inside each group, searching hides a group with no row left
    var groups = Array.prototype.map.call(table.tBodies, function (body) {
      var all = Array.prototype.slice.call(body.rows);
      return { body: body, head: all.filter(function (r) { return r.classList.contains("svmcert-group-row"); })[0] || null,
               rows: all.filter(function (r) { return !r.classList.contains("svmcert-group-row"); }) };
    });
    var rows = [].concat.apply([], groups.map(function (g) { return g.rows; }));
    var bar = document.createElement("div");
    bar.className = "svmcert-table-bar";
    var input = document.createElement("input");
    input.type = "search";
    input.className = "svmcert-table-search";
    input.placeholder = "Search this table";
    input.setAttribute("aria-label", "Search this table");
    var count = document.createElement("span");
    count.className = "svmcert-table-count";
    bar.appendChild(input);
    bar.appendChild(count);
    var box = table.closest(".svmcert-table-box") || table;
    box.parentNode.insertBefore(bar, box);
    function update() {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      groups.forEach(function (g) { g.rows.forEach(function (row) {
        var text = (row.textContent + " " + (g.head ? g.head.textContent : "")).toLowerCase();   // a group's heading names its rows
        var keep = words.every(function (w) { return text.indexOf(w) >= 0; });
        row.style.display = keep ? "" : "none";
        if (keep) { shown += 1; }
      }); });
      groups.forEach(function (g) {
        if (g.head) { g.head.style.display = g.rows.some(function (r) { return r.style.display !== "none"; }) ? "" : "none"; }
      });
      count.textContent = shown === rows.length ? rows.length + " rows" : shown + " of " + rows.length + " rows";
    }
    input.addEventListener("input", update);
    var heads = table.tHead ? table.tHead.rows[table.tHead.rows.length - 1].cells : [];
    Array.prototype.forEach.call(heads, function (th, col) {
      th.classList.add("svmcert-sortable");
      th.setAttribute("role", "button");
      th.setAttribute("tabindex", "0");
      th.title = "Sort by this column";
      var sorter = function () {
        var dir = th.getAttribute("data-dir") === "asc" ? "desc" : "asc";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("data-dir"); });
        th.setAttribute("data-dir", dir);
        var sign = dir === "asc" ? 1 : -1;
        groups.forEach(function (g) {
          g.rows.sort(function (a, b) {
            var x = cellKey(a.cells[col]), y = cellKey(b.cells[col]);
            if (x.num && y.num) { return sign * (x.v - y.v); }
            if (x.num !== y.num) { return x.num ? -1 : 1; }
            return sign * (x.v < y.v ? -1 : x.v > y.v ? 1 : 0);
          });
          g.rows.forEach(function (row) { g.body.appendChild(row); });
        });
      };
      th.addEventListener("click", sorter);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sorter(); } });
    });
    update();
  }
  function all() { document.querySelectorAll("table.svmcert-interactive").forEach(enhance); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", all); } else { all(); }
})();
