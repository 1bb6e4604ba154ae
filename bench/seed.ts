import postgres from 'postgres';
import { migrateDatabase } from './service.js';

/** The store's size when `--pets` is not given. */
export const DEFAULT_BENCH_PETS = 10_000;

/**
 * Real pet names, most common first. A store's names are skewed: the seeded pets take them with
 * Zipf's law (the name of rank r about 1/r as often as the first), so `bella` is in about one
 * pet in eight and the last names in a few hundred per million.
 */
export const PET_NAMES: readonly string[] = [
  'Bella',
  'Max',
  'Luna',
  'Charlie',
  'Lucy',
  'Cooper',
  'Daisy',
  'Milo',
  'Bailey',
  'Rocky',
  'Sadie',
  'Buddy',
  'Molly',
  'Bear',
  'Lola',
  'Tucker',
  'Stella',
  'Duke',
  'Zoey',
  'Jack',
  'Oliver',
  'Maggie',
  'Leo',
  'Chloe',
  'Teddy',
  'Sophie',
  'Loki',
  'Penny',
  'Bentley',
  'Coco',
  'Winston',
  'Rosie',
  'Murphy',
  'Ruby',
  'Zeus',
  'Lily',
  'Toby',
  'Gracie',
  'Jax',
  'Nala',
  'Oscar',
  'Riley',
  'Louie',
  'Piper',
  'Finn',
  'Roxy',
  'Henry',
  'Ellie',
  'Ollie',
  'Willow',
  'Gus',
  'Abby',
  'Koda',
  'Lilly',
  'Beau',
  'Mia',
  'Apollo',
  'Harley',
  'Rex',
  'Pepper',
  'Jasper',
  'Dixie',
  'Simba',
  'Zoe',
  'Blue',
  'Marley',
  'Ace',
  'Ginger',
  'Diesel',
  'Layla',
  'Thor',
  'Millie',
  'Moose',
  'Olive',
  'Hank',
  'Athena',
  'Kona',
  'Bruno',
  'Hazel',
  'Bandit',
  'Lulu',
  'Remy',
  'Honey',
  'Rusty',
  'Belle',
  'Shadow',
  'Sasha',
  'Ziggy',
  'Izzy',
  'Sam',
  'Minnie',
  'Otis',
  'Roscoe',
  'Annie',
  'Baxter',
  'Cleo',
  'Benji',
  'Cali',
  'Archie',
  'Lady',
  'Boomer',
  'Ivy',
  'Scout',
  'Josie',
  'Chester',
  'Emma',
  'Bo',
  'Phoebe',
  'Jake',
  'Gizmo',
  'Arlo',
  'Maya',
  'Kobe',
  'Poppy',
  'Hunter',
  'Dakota',
  'Ranger',
  'Lexi',
  'Rufus',
  'Nova',
  'Oreo',
  'Angel',
  'Sammy',
  'Missy',
  'Frankie',
  'Princess',
  'Gunner',
  'Callie',
  'Samson',
  'Fiona',
  'Dexter',
  'Pearl',
  'Katie',
  'Titan',
  'Axel',
  'Sugar',
  'Benny',
  'Biscuit',
  'Brody',
  'Lucky',
  'Bruiser',
  'Atlas',
  'Skye',
  'Ozzy',
  'Sassy',
  'Rambo',
  'Mocha',
  'Maverick',
  'Tilly',
  'Bowie',
  'Juno',
  'Buster',
  'Peanut',
  'Sparky',
  'Misty',
  'Jackson',
  'Trixie',
  'Harvey',
  'Freya',
  'Romeo',
  'Hope',
  'Ringo',
  'Sky',
  'Ghost',
  'Tinkerbell',
  'Hercules',
  'Violet',
  'Bosco',
  'Pixie',
  'Yoshi',
  'Mabel',
  'Fritz',
  'Olga',
  'Igor',
  'Pablo',
  'Paco',
  'Zorro',
  'Nacho',
  'Chico',
  'Kiki',
  'Mimi',
  'Momo',
  'Tofu',
  'Mochi',
  'Sushi',
  'Kimchi',
  'Wasabi',
  'Zoë',
  'Chloé',
  'Renée',
  'Ölaf',
  'Björn',
  'Jürgen',
  'Mía',
  'Lúcia',
  'Frédéric',
  'Anaïs',
  'Søren',
  'Åsa',
  'Łatka',
  'Mürfel',
  'Gänseblümchen',
  'Señor',
  'Niño',
  'Paçoca',
  'Ñandú',
  'Éclair',
  'Crème',
  'Brûlée',
  'Noël',
  'Zoé',
  'Mañana',
  'Jalapeño',
  'Ångström',
  'Fräulein',
  'Müsli',
  'Smørbrød',
  'Çiçek',
  'Kedi',
  'Dušan',
  'Žofka',
  'Мурка',
  'Барсик',
  'Пушок',
  'Рыжик',
  'Шарик',
  'Снежок',
  'Ζεύς',
  'Άρτεμις',
  'ハナ',
  'モモ',
  'ソラ',
  '小白',
  '旺财',
  'Ηρα',
  'Чапа',
  'Tigrou',
  'Minou',
  'Filou',
  'Caramel',
  'Pistache',
  'Noisette',
  'Câline',
  'Réglisse',
  'Loulou',
  'Doudou',
  'Pompon',
  'Vanille',
  'Praline',
  'Biscotte',
  'Cookie',
  'Muffin',
  'Waffles',
  'Pickles',
  'Noodle',
  'Nugget',
  'Sprout',
  'Pumpkin',
  'Cinnamon',
  'Nutmeg',
  'Wally',
  'Gordo',
  'Flaco',
  'Chispa',
  'Canela',
  'Luz',
  'Estrella',
  'Paloma',
  'Tesoro',
  'Bonita',
  'Chiquita',
  'Pelusa',
  'Manchas',
  'Pancho',
  'Lupita',
  'Rayo',
  'Trueno',
  'Sombra',
  'Cielo',
  'Brisa',
  'Flor',
  'Nube',
  'Coqui',
  'Mango',
  'Kiwi',
  'Papaya',
  'Guava',
  'Captain',
  'Admiral',
  'Sergeant',
  'Professor',
  'Duchess',
  'Baroness',
  'Countess',
  'Bishop',
  'Marquis',
  'Sir',
  'Madame',
  'Monsieur',
  'Lord',
];

/**
 * Second words, each with the share of pets that carry it: `jr` is a common term, `von bark`
 * a medium one (about a thousand pets in a million) and `quixote` a rare one (about ten).
 */
export const SECOND_WORDS: readonly (readonly [word: string, share: number])[] = [
  ['Jr', 0.03],
  ['II', 0.02],
  ['the Great', 0.01],
  ['Sr', 0.01],
  ['von Bark', 0.001],
  ['Quixote', 0.00001],
];

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A fraction in [0, 1) drawn from an integer by PostgreSQL's own hash: the same on every run. */
const fraction = (integer: string) => `((hashint8(${integer}) & 2147483647) / 2147483648.0)`;

/**
 * An SQL expression for the name of the seeded pet numbered by the integer expression
 * `series`: a first name drawn from PET_NAMES by Zipf's law, sometimes a second word.
 */
export function seededPetName(series: string): string {
  const names = `array[${PET_NAMES.map(literal).join(',')}]`;
  const rank = `floor(power(${PET_NAMES.length + 1}, ${fraction(`(${series})::bigint`)}))::int`;
  const draw = fraction(`-1 - (${series})::bigint`);
  let bound = 0;
  const seconds = SECOND_WORDS.map(([word, share]) => {
    bound += share;
    return `when ${draw} < ${bound} then ${literal(` ${word}`)}`;
  });
  return `((${names})[${rank}] || case ${seconds.join(' ')} else '' end)`;
}

/**
 * The pet count `--pets` asks for. Every connection of the write scenarios takes a pet of its
 * own among every third one (bench/load.ts), so the store needs three pets per connection.
 */
export function parsePetCount(text: string, connections: number): number {
  const pets = Number(text.replaceAll('_', ''));
  if (!Number.isSafeInteger(pets) || pets < 3 * connections) {
    throw new Error(
      `--pets must be a whole number of at least ${3 * connections} (3 per connection), not ${text}`,
    );
  }
  return pets;
}

/** Runs `statements` in turn on an administrative connection to the server at `serverUrl`. */
async function administer(serverUrl: string, statements: string[]): Promise<void> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  try {
    for (const statement of statements) await admin.unsafe(statement);
  } finally {
    await admin.end();
  }
}

export function dropDatabase(serverUrl: string, name: string): Promise<void> {
  return administer(serverUrl, [`drop database if exists "${name}" with (force)`]);
}

/** An empty database `name` on the server at `serverUrl` (dropped first if it exists): its URL. */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  await administer(serverUrl, [
    `drop database if exists "${name}" with (force)`,
    `create database "${name}"`,
  ]);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh database of `pets` pets with real names and mixed statuses, migrated like production. */
export async function seedBenchDatabase(
  serverUrl: string,
  name: string,
  pets: number,
): Promise<string> {
  const url = await freshDatabase(serverUrl, name);
  migrateDatabase(url);
  const db = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await db.unsafe(
      `insert into pets (name, category_id, status)
      select ${seededPetName('g')}, 1 + g % 50,
        (array['available', 'pending', 'sold'])[1 + g % 3]::pet_status
      from generate_series(1, $1::int) as g`,
      [pets],
    );
    await db`analyze pets`;
    // The floor's own event log, the same table as the service's: the service's feed reads
    // `events` and would otherwise deliver the floor's changes to its streams on the floor's core.
    await db`create table floor_events (like events including all)`;
  } finally {
    await db.end();
  }
  return url;
}

/**
 * Undoes what the write scenarios leave behind (a run can stop between placing and cancelling
 * an order): no open order, and every third pet available again, as seeded.
 */
export async function resetWriteState(url: string): Promise<void> {
  const db = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await db`update orders set status = 'cancelled' where status in ('placed', 'approved')`;
    await db`update pets set status = 'available' where id % 3 = 0 and status <> 'available'`;
  } finally {
    await db.end();
  }
}
