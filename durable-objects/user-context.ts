import { DurableObject } from 'cloudflare:workers';

/** How long a caller's last requested meeting is remembered (spec 000 B, Limits). */
export const USER_CONTEXT_TTL_MS = 5 * 60 * 1000;

export interface RememberedMeeting {
  date: string;
  course_id: number;
}

interface StoredMeeting extends RememberedMeeting {
  at: number;
}

/**
 * The meeting one caller address last asked for through a camelCase statistics endpoint.
 * One object per address (idFromName); the entry is forgotten by an alarm once it is stale.
 */
export class UserContext extends DurableObject {
  async remember(meeting: RememberedMeeting): Promise<void> {
    const entry: StoredMeeting = { date: meeting.date, course_id: meeting.course_id, at: Date.now() };
    await this.ctx.storage.put('meeting', entry);
    await this.ctx.storage.setAlarm(entry.at + USER_CONTEXT_TTL_MS);
  }

  /** The remembered meeting if it was requested within the last five minutes, else null. */
  async recall(): Promise<RememberedMeeting | null> {
    const entry = await this.ctx.storage.get<StoredMeeting>('meeting');
    if (!entry || Date.now() - entry.at > USER_CONTEXT_TTL_MS) return null;
    return { date: entry.date, course_id: entry.course_id };
  }

  override async alarm(): Promise<void> {
    const entry = await this.ctx.storage.get<StoredMeeting>('meeting');
    if (entry && Date.now() - entry.at < USER_CONTEXT_TTL_MS) {
      await this.ctx.storage.setAlarm(entry.at + USER_CONTEXT_TTL_MS);
      return;
    }
    await this.ctx.storage.deleteAll();
  }
}
