import type { Message } from '@microsoft/microsoft-graph-types';
import { recipients } from './api-common.ts';

/** A new message for Graph, to send or to keep as a draft, from the fields of `messageFields` and the body's HTML. */
export function newMessage(fields: { subject: string; to: string[]; cc: string[]; bcc: string[] }, html: string): Message {
  return {
    subject: fields.subject,
    body: { contentType: 'html', content: html },
    toRecipients: recipients(fields.to),
    ccRecipients: recipients(fields.cc),
    bccRecipients: recipients(fields.bcc),
  };
}
