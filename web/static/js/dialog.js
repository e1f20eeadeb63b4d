// dialog.js opens modal dialogs on the native <dialog> element, which keeps keyboard focus
// inside while open and closes on Escape; focus returns to the opener when it closes.
import { h, uid } from './dom.js';
import { formError, showError, clearErrors, reasonField, needReason } from './form.js';

/**
 * openDialog shows a modal. content is a node or array; actions are buttons. It returns
 * {el, close, setBusy}; onClose runs after it closed.
 */
export function openDialog({ title, content, actions = [], testid, wide, onClose }) {
  const opener = document.activeElement;
  const titleId = uid('dlg');
  const el = h('dialog', { class: ['dialog', wide && 'dialog-wide'], 'aria-labelledby': titleId, testid },
    h('div', { class: 'dialog-head' }, h('h2', { id: titleId }, title)),
    h('div', { class: 'dialog-body' }, content),
    actions.length ? h('div', { class: 'dialog-actions' }, actions) : null);
  let busy = false;
  el.addEventListener('cancel', (e) => {
    if (busy) e.preventDefault();
  });
  el.addEventListener('close', () => {
    el.remove();
    if (opener && opener.isConnected && typeof opener.focus === 'function') opener.focus();
    if (onClose) onClose(el.returnValue);
  });
  document.body.append(el);
  el.showModal();
  const first = el.querySelector('[autofocus], textarea, input:not([type=hidden]), select') || el.querySelector('.dialog-actions button');
  if (first) first.focus();
  return {
    el,
    close(value = '') {
      if (el.open) el.close(value);
    },
    setBusy(b) {
      busy = b;
      el.querySelectorAll('button, textarea, input, select').forEach((c) => { c.disabled = b; });
      el.setAttribute('aria-busy', b ? 'true' : 'false');
    },
  };
}

/**
 * confirmWithReason asks for confirmation and a required reason, then runs
 * onConfirm(reason). API errors stay in the dialog so the user can correct and retry. It
 * resolves to onConfirm's result, or null when cancelled.
 */
export function confirmWithReason({ title, intro, confirmLabel, danger, testid, onConfirm, wide, reasonHint }) {
  return new Promise((resolve) => {
    const summary = formError();
    const form = h('form', { class: 'dialog-form', novalidate: true, testid: testid ? testid + '-form' : undefined },
      intro, summary, reasonField({ testid: testid ? testid + '-reason' : 'confirm-reason', hint: reasonHint }));
    const cancel = h('button', { type: 'button', class: 'btn btn-quiet', testid: testid ? testid + '-cancel' : 'confirm-cancel' }, 'Cancel');
    const ok = h('button', { type: 'submit', class: ['btn', danger ? 'btn-danger' : 'btn-primary'], testid: testid ? testid + '-confirm' : 'confirm-submit' }, confirmLabel);
    const formId = uid('form');
    form.id = formId;
    ok.setAttribute('form', formId);
    let result = null;
    const dlg = openDialog({ title, content: form, actions: [cancel, ok], testid, wide, onClose: () => resolve(result) });
    cancel.addEventListener('click', () => dlg.close('cancel'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearErrors(form);
      const reason = needReason(form);
      if (reason === null) return;
      dlg.setBusy(true);
      try {
        result = await onConfirm(reason);
        dlg.setBusy(false);
        dlg.close('ok');
      } catch (err) {
        dlg.setBusy(false);
        showError(form, err.field === 'message' ? err : { message: err.message });
      }
    });
  });
}

/**
 * confirmAction asks to confirm a step that takes no reason, such as a token's deletion:
 * run does it and done follows; an error run throws is shown in the dialog, except a 401,
 * which signs the user out anyway. testid names the dialog (-dialog) and its buttons
 * (-confirm, -cancel).
 */
export function confirmAction({ title, content, confirmLabel, testid, run, done }) {
  const confirm = h('button', { type: 'button', class: 'btn btn-danger', testid: `${testid}-confirm` }, confirmLabel);
  const cancel = h('button', { type: 'button', class: 'btn btn-quiet', testid: `${testid}-cancel` }, 'Cancel');
  const err = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const dlg = openDialog({ title, testid: `${testid}-dialog`, content: [...content, err], actions: [cancel, confirm] });
  cancel.addEventListener('click', () => dlg.close());
  confirm.addEventListener('click', async () => {
    dlg.setBusy(true);
    try {
      await run();
      dlg.setBusy(false);
      dlg.close();
      done();
    } catch (e) {
      dlg.setBusy(false);
      if (e.status === 401) { dlg.close(); return; }
      err.textContent = e.message;
      err.hidden = false;
    }
  });
  cancel.focus();
}
