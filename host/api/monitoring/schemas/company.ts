// Records of the company operations (reference 1.14.0): areas, teams, the body that makes a
// team with its leader, and the user the API key belongs to.
export interface Area {
  id: number;
  name: string;
}

export interface Team {
  id: number;
  name: string;
}

export interface TeamCreation {
  name: string;
  leader: {
    /** The leader's user name (unique in the account). */
    name: string;
    password: string;
    details: { display_name: string };
  };
}

export interface User {
  id?: number;
  name?: string;
}

const nonEmpty = (description: string, maxLength = 255) => ({ type: 'string', minLength: 1, maxLength, description }) as const;

export const areaSchema = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer', description: 'The identifier of the Area' }, name: { type: 'string', description: 'The name of the Area' } },
} as const;

export const teamSchema = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer', description: 'The identifier of the Team' }, name: { type: 'string', description: 'The name of the Team' } },
} as const;

export const teamCreationSchema = {
  type: 'object',
  description: 'A new team and its leader',
  required: ['name', 'leader'],
  additionalProperties: false,
  properties: {
    name: nonEmpty("The Team's name (unique in its area, case-insensitive)"),
    leader: {
      type: 'object',
      required: ['name', 'password', 'details'],
      additionalProperties: false,
      properties: {
        name: nonEmpty("The Team Leader's user name (unique in the account, case-insensitive)"),
        password: nonEmpty("The Team Leader's password (checked, not kept: the local server has no logins)", 1024),
        details: {
          type: 'object',
          required: ['display_name'],
          additionalProperties: false,
          properties: { display_name: nonEmpty("The Team Leader's display name") },
        },
      },
    },
  },
} as const;

export const userSchema = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
} as const;
