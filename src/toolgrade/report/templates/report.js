(function () {
  "use strict";
  var table = document.getElementById("failures");
  if (!table) {
    return;
  }
  var text = document.getElementById("filter-text");
  var status = document.getElementById("filter-status");
  var category = document.getElementById("filter-category");
  var serving = document.getElementById("filter-serving");
  var count = document.getElementById("filter-count");
  var cases = Array.prototype.slice.call(table.tBodies);

  function filter() {
    var query = text.value.trim().toLowerCase();
    var shown = 0;
    cases.forEach(function (body) {
      var visible = (!query || body.dataset.search.indexOf(query) !== -1) &&
        (!status.value || body.dataset.status === status.value) &&
        (!category.value || body.dataset.category === category.value) &&
        (!serving.value || body.dataset.serving === serving.value);
      body.hidden = !visible;
      if (visible) {
        shown += 1;
      }
    });
    count.textContent = shown + " of " + cases.length + " shown";
  }

  function sortBy(header) {
    var key = header.dataset.key;
    var numeric = header.dataset.numeric === "1";
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.setAttribute("aria-sort", "none");
    });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    cases.sort(function (a, b) {
      var x = a.dataset[key];
      var y = b.dataset[key];
      var order = numeric ?
        (parseFloat(x) || 0) - (parseFloat(y) || 0) :
        x.localeCompare(y, undefined, {numeric: true});
      // Ties fall back on the case name, so descending is exactly ascending reversed.
      order = order || a.dataset.name.localeCompare(b.dataset.name, undefined, {numeric: true});
      return ascending ? order : -order;
    });
    cases.forEach(function (body) {
      table.appendChild(body);
    });
  }

  [text, status, category, serving].forEach(function (control) {
    control.addEventListener("input", filter);
    control.addEventListener("change", filter);
  });
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header) {
    header.querySelector("button").addEventListener("click", function () {
      sortBy(header);
    });
  });
  // A fragment such as #status=wrong_args&category=edge&serving=calls_in_text&q=read_file
  // presets the filters.
  function fromFragment() {
    var preset = new URLSearchParams(window.location.hash.slice(1));
    text.value = preset.get("q") || "";
    status.value = preset.get("status") || "";
    category.value = preset.get("category") || "";
    serving.value = preset.get("serving") || "";
    filter();
  }

  window.addEventListener("hashchange", fromFragment);
  fromFragment();
}());
