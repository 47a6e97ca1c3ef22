import { describe, expect, it } from 'vitest';
import { devServiceVars, localMailModel } from '../../scripts/dev-service-vars';

// `npm run dev` gives the assistant the model workers/mail/.dev.vars chooses: the offline model by
// default, or the Graph stand-in's OpenAI-compatible endpoint; Workers AI cannot run locally.

const STANDIN = 'http://127.0.0.1:8796';

describe('the local model of the mail assistant', () => {
  it('is the offline model when .dev.vars names none', () => {
    expect(localMailModel({}, STANDIN)).toEqual({ MAIL_MODEL: 'offline' });
    expect(localMailModel({ MAIL_MODEL: 'offline', OPENAI_MODEL: 'x' }, STANDIN)).toEqual({ MAIL_MODEL: 'offline' });
  });

  it('MAIL_MODEL=openai is the stand-in’s endpoint, or the one .dev.vars names', () => {
    expect(localMailModel({ MAIL_MODEL: 'openai' }, STANDIN)).toEqual({
      MAIL_MODEL: 'openai',
      OPENAI_BASE_URL: `${STANDIN}/v1`,
      OPENAI_MODEL: 'standin-chat',
    });
    expect(
      localMailModel({ MAIL_MODEL: 'openai', OPENAI_BASE_URL: 'https://llm.example/v1', OPENAI_MODEL: 'm', OPENAI_API_KEY: 'k' }, STANDIN),
    ).toEqual({ MAIL_MODEL: 'openai', OPENAI_BASE_URL: 'https://llm.example/v1', OPENAI_MODEL: 'm', OPENAI_API_KEY: 'k' });
  });

  it('refuses Workers AI and unknown names, which cannot run locally', () => {
    expect(() => localMailModel({ MAIL_MODEL: 'workers-ai' }, STANDIN)).toThrow(/cannot run locally/);
    expect(() => localMailModel({ MAIL_MODEL: 'gpt' }, STANDIN)).toThrow(/cannot run locally/);
  });

  it('reaches the mail Worker’s vars through devServiceVars', () => {
    const base = { legacyDatabaseUrl: 'postgres://u:p@127.0.0.1:5499/legacy', embeddedRacingDatabase: true, graphStandin: `${STANDIN}/` };
    // and, as `npm run dev` needs, the stand-in's mailbox connects by itself before the first page
    expect(devServiceVars(base).mail).toMatchObject({
      MAIL_MODEL: 'offline',
      MAIL_DEV_AUTO_CONNECT: 'true',
      GRAPH_BASE_URL: `${STANDIN}/v1.0`,
      IDENTITY_BASE_URL: STANDIN,
    });
    expect(devServiceVars({ ...base, mailDevVars: { MAIL_MODEL: 'openai' } }).mail).toMatchObject({
      MAIL_MODEL: 'openai',
      OPENAI_BASE_URL: `${STANDIN}/v1`,
    });
  });
});
