import type { Recipient, StoredMessage } from './mailbox.ts';
import { bodyText } from './mailbox.ts';

/** The RFC 822 form of a message (Graph's `GET /messages/{id}/$value`): multipart when it has attachments. */
export function messageMime(message: StoredMessage): string {
  const boundary = `_000_${message.immutableId.slice(-24).replace(/[^A-Za-z0-9]/g, 'x')}_`;
  const alternative = `${boundary}alt_`;
  const headers = [
    message.from ? `From: ${address(message.from)}` : null,
    message.toRecipients.length ? `To: ${message.toRecipients.map(address).join(',\r\n\t')}` : null,
    message.ccRecipients.length ? `CC: ${message.ccRecipients.map(address).join(',\r\n\t')}` : null,
    message.isDraft && message.bccRecipients.length ? `BCC: ${message.bccRecipients.map(address).join(',\r\n\t')}` : null,
    `Subject: ${encodeWord(message.subject)}`,
    `Date: ${new Date(message.sentDateTime ?? message.receivedDateTime).toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: ${message.internetMessageId}`,
    message.inReplyTo ? `In-Reply-To: ${message.inReplyTo}` : null,
    message.inReplyTo ? `References: ${message.inReplyTo}` : null,
    `Thread-Topic: ${encodeWord(message.subject.replace(/^(re|fw|fwd):\s*/i, ''))}`,
    `Importance: ${message.importance}`,
    'Content-Language: en-AU',
    'MIME-Version: 1.0',
  ].filter((h): h is string => h !== null);

  const alternativePart = [
    `Content-Type: multipart/alternative;\r\n\tboundary="${alternative}"`,
    '',
    `--${alternative}`,
    'Content-Type: text/plain; charset="utf-8"',
    'Content-Transfer-Encoding: base64',
    '',
    base64Lines(Buffer.from(bodyText(message), 'utf8')),
    `--${alternative}`,
    `Content-Type: text/html; charset="utf-8"`,
    'Content-Transfer-Encoding: base64',
    '',
    base64Lines(
      Buffer.from(
        message.body.contentType === 'html' ? message.body.content : `<html><body><pre>${message.body.content}</pre></body></html>`,
        'utf8',
      ),
    ),
    `--${alternative}--`,
    '',
  ].join('\r\n');

  if (message.attachments.length === 0) return `${headers.join('\r\n')}\r\n${alternativePart}`;

  const parts = [
    `${headers.join('\r\n')}\r\nContent-Type: multipart/mixed;\r\n\tboundary="${boundary}"\r\n`,
    `--${boundary}\r\n${alternativePart}`,
  ];
  for (const attachment of message.attachments) {
    parts.push(
      [
        `--${boundary}`,
        `Content-Type: ${attachment.contentType}; name="${attachment.name}"`,
        `Content-Description: ${attachment.name}`,
        `Content-Disposition: attachment; filename="${attachment.name}"; size=${attachment.bytes.length}`,
        'Content-Transfer-Encoding: base64',
        '',
        base64Lines(attachment.bytes),
      ].join('\r\n'),
    );
  }
  parts.push(`--${boundary}--\r\n`);
  return parts.join('\r\n');
}

function address(r: Recipient): string {
  const { name, address } = r.emailAddress;
  return name && name !== address
    ? `${/^[\x20-\x7e]*$/.test(name) ? `"${name.replace(/"/g, '')}"` : encodeWord(name)} <${address}>`
    : address;
}

function encodeWord(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?utf-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

function base64Lines(bytes: Buffer): string {
  return (bytes.toString('base64').match(/.{1,76}/g) ?? ['']).join('\r\n');
}
