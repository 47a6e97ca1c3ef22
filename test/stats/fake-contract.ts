/** The key the fake external statistics API accepts, and the course ids that make it misbehave. */
export const FAKE_EXTERNAL_KEY = 'fake-external-key-0123456789';
export const FAKE_COURSE = {
  missing: 404_001,
  failing: 500_001,
  hanging: 900_001,
  offContract: 422_001,
  notJson: 415_001,
} as const;
