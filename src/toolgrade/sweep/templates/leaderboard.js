(function () {
  "use strict";
  // Every leaderboard table sorts on a click on a column heading; "Rank" (data-order)
  // puts the rows back in the order the page was written in, best first.
  Array.prototype.forEach.call(document.querySelectorAll("table.leaderboard"), function (table) {
    var body = table.tBodies[0];
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells).filter(function (cell) {
      return cell.dataset.key;
    });

    function value(row, key, numeric) {
      var text = row.dataset[key];
      if (!numeric) {
        return text;
      }
      var number = parseFloat(text);
      return isNaN(number) ? Infinity : number;
    }

    function sortBy(header) {
      var key = header.dataset.key;
      var numeric = header.dataset.numeric === "1";
      var ascending = header.getAttribute("aria-sort") !== "ascending";
      headers.forEach(function (cell) {
        cell.setAttribute("aria-sort", "none");
      });
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = value(a, key, numeric);
        var y = value(b, key, numeric);
        var order = numeric ? (x === y ? 0 : (x < y ? -1 : 1)) :
          x.localeCompare(y, undefined, {numeric: true});
        // Ties keep the default order, so descending is exactly ascending reversed.
        order = order || value(a, "order", true) - value(b, "order", true);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) {
        body.appendChild(row);
      });
    }

    headers.forEach(function (header) {
      header.querySelector("button").addEventListener("click", function () {
        sortBy(header);
      });
    });
  });
}());
