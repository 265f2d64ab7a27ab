// Coffer's payment page (payment_page/domain.rs): the donor confirms, the provider's
// script (loaded before this one) asks their bank, and the page goes back to Coffer, which
// asks the provider how it ended. No card number passes through here.
(function () {
  "use strict";
  var root = document.getElementById("pay");
  var button = document.getElementById("confirm");
  var status = document.getElementById("status");
  if (!root || !button || !status) {
    return;
  }
  if (typeof Stripe !== "function") {
    // The provider's script did not load (blocked, or the network): say so, not nothing.
    status.textContent = root.dataset.unavailable;
    button.setAttribute("aria-disabled", "true");
    return;
  }
  var started = false;
  button.addEventListener("click", function () {
    // aria-disabled rather than disabled, so the focus stays on the button.
    if (started) {
      return;
    }
    started = true;
    button.setAttribute("aria-disabled", "true");
    status.textContent = root.dataset.working;
    var stripe = Stripe(root.dataset.key);
    // Whatever the bank said, Coffer asks the provider itself on the way back.
    stripe.confirmCardPayment(root.dataset.secret).then(
      function () { window.location.assign(root.dataset.back); },
      function () { window.location.assign(root.dataset.back); }
    );
  });
})();
