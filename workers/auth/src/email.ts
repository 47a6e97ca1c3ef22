/** Account e-mails are stored and looked up trimmed and lower-cased. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();
