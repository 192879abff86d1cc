// The shopper's claim form with a script (D56): each photo uploads as it is chosen, with a
// progress bar, to the form's upload address; once stored, the form carries its link in a
// hidden field and the file field is emptied, so the photo is not sent twice. Without this
// script the photos go with the form.
(() => {
  const form = document.querySelector('form[data-upload]');
  if (!form) return;
  const target = form.getAttribute('data-upload');
  const csrf = form.querySelector('input[name="csrf"]').value;
  const pass = form.querySelector('input[name="pass"]').value;
  let pending = 0;

  function upload(file, line, list) {
    const item = document.createElement('li');
    const label = document.createElement('span');
    label.textContent = `${file.name}: uploading`;
    const bar = document.createElement('progress');
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute('aria-label', `Uploading ${file.name}`);
    item.append(label, ' ', bar);
    list.append(item);
    const body = new FormData();
    body.append('csrf', csrf);
    body.append('pass', pass);
    body.append('file', file, file.name);
    const request = new XMLHttpRequest();
    request.open('POST', target);
    request.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) bar.value = Math.round((e.loaded / e.total) * 100);
    });
    pending += 1;
    request.addEventListener('loadend', () => {
      pending -= 1;
      let answer = {};
      try {
        answer = JSON.parse(request.responseText);
      } catch {}
      if (request.status === 201 && answer.data) {
        bar.value = 100;
        label.textContent = `${file.name}: added`;
        const hidden = document.createElement('input');
        hidden.type = 'hidden';
        hidden.name = `photoUrl.${line}`;
        hidden.value = answer.data.url;
        item.append(hidden);
        item.setAttribute('data-uploaded', 'true');
      } else {
        bar.remove();
        label.textContent = `${file.name}: not added. ${answer.message || 'Try again.'}`;
        item.setAttribute('role', 'alert');
      }
    });
    request.send(body);
  }

  for (const input of form.querySelectorAll('input[type="file"][data-line]')) {
    input.addEventListener('change', () => {
      const line = input.getAttribute('data-line');
      const list = document.getElementById(`uploads-${line}`);
      for (const file of Array.from(input.files || [])) upload(file, line, list);
      input.value = '';
    });
  }

  form.addEventListener('submit', (e) => {
    if (pending > 0) {
      e.preventDefault();
      const wait = () => (pending > 0 ? setTimeout(wait, 100) : form.requestSubmit());
      wait();
    }
  });
})();
