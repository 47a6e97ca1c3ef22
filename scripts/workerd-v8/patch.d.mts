/** The binary Cap'n Proto workerd config `input` with its `v8Flags` set to `flags` (see patch.mjs). */
export declare function withV8Flags(input: Buffer, flags: string[]): Buffer;
